// Package ratelimit holds the service's abuse limits:
//
//   - [Shared], the global limiter: fixed windows decided in process, with
//     no network call on the request path, reconciled with Redis in the
//     background so that every instance shares one budget, within the
//     bound below;
//   - [Limiter], a fixed-window limiter that counts every hit in Redis (one
//     round trip), for rare security-relevant budgets such as the
//     credential classes, with an in-process fallback;
//   - [SlowDown], the per-account slow-down of password guessing;
//   - [ClientKey], the client identity limits count by (an IPv4 address or
//     an IPv6 prefix).
//
// # The Shared limiter's overshoot bound
//
// Each instance admits a hit while the last shared total it read from Redis
// plus its own hits since stay below the limit, and syncs every interval I
// (at most 1 s): INCRBY of its new hits and a read of the total of every
// key it holds for the current window, whether or not it had a new hit on
// it, in one pipelined round trip (per 512 keys). A hit admitted by one
// instance is therefore in Redis within I (plus a round trip), and known to
// every other instance that holds the key, busy with it or idle, within
// 2·I (plus two round trips); an instance that has not seen the key in the
// window reads the total with the first sync after its first hit, and
// admits at most the hits of that one interval meanwhile. So once the shared count of a key reaches the limit, the other
// instances admit for at most 2·I more: over a window, N instances admit
// at most the limit plus the hits that reach them in those 2·I, and never
// more than N times the limit. With I = 1 s, a client sending r requests a
// second overshoots by at most about 2·r, and by nothing if it keeps to
// one instance. Refused hits are not counted. Windows are aligned to the
// clock, so instances need synchronised clocks (NTP); a skew of s shifts an
// instance's window by s. When Redis fails each instance counts alone (N
// instances allow up to N times the limit), logs once, and adds its hits
// to the shared counter when Redis answers again.
//
// # Limiter
//
// Limiter is a fixed-window request limiter whose counters live in
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
// [Limiter.Peek] reads a key's window without counting a hit, for a budget
// that is checked before a request and spent only by some outcomes of it
// (failed password attempts).
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
