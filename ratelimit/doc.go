// Package ratelimit is a fixed-window request limiter whose counters live in
// Redis, so that every instance of the service shares them, and which falls
// back to counting in-process when Redis fails.
//
// # Windows and Redis keys
//
// A window opens at the first hit on a key and lasts exactly the window
// length; the next hit after it closes opens a new one. In Redis each
// (key, window length) pair is one string key,
//
//	<Prefix><key>:<window in milliseconds>
//
// for example "actionkit:ratelimit:ip:203.0.113.9:300000". One Lua script
// increments it and, on the first hit, sets its expiry to the window length,
// then returns the count and the remaining time to live: one round trip,
// atomic, so concurrent callers on any number of instances never lose a hit.
// Only the Redis clock decides when a window ends, so clock skew between
// instances does not matter. Keys longer than [MaxKeyLength] bytes (and keys
// that already start with "sha256:") are replaced by "sha256:" and the hex
// SHA-256 digest of the key, so an untrusted key cannot make Redis keys (or
// in-process map keys) unbounded, nor pose as another key's digest.
// The window length is part of the key, so two limits that share a key but
// not a window (a global and a per-route limit, say) never mix their counts.
//
// # Degraded mode
//
// When a Redis call fails (dial error, pool exhausted, timeout after
// [Config.Timeout], script error) the request is counted by an in-process
// counter with the same semantics and its [Decision] has Degraded set. The
// limiter logs one warning when it enters this mode and one info line when
// Redis answers again, and it asks Redis again only once per
// [Config.RetryAfterFailure] (one probing request; the others stay
// in-process), so a dead Redis adds no latency to requests. While degraded
// each instance enforces the limit on its own, so N instances allow up to N
// times the limit. A request whose own context is cancelled is counted
// in-process without declaring Redis unhealthy.
//
// Allow never fails and never panics; a limit of zero or less refuses every
// hit. The in-process counter forgets expired windows from a background
// sweeper, which [Limiter.Close] stops.
package ratelimit
