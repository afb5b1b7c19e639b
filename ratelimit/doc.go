// Package ratelimit holds the service's abuse limits:
//
//   - [Shared], the global limiter: it decides in process, with no network
//     call on the request path, and reconciles its counts with Redis in the
//     background so that every instance shares one budget (within the
//     bound below);
//   - [Limiter], which counts every hit in Redis (one round trip), for rare
//     budgets that matter to security, such as the credential classes;
//   - [SlowDown], the per-account slow-down of password guessing;
//   - [ClientKey], the identity a client is counted by (an IPv4 address or
//     an IPv6 prefix).
//
// # The Shared limiter's overshoot bound
//
// Shared may admit a little more than its limit, because instances learn
// of each other's hits late. Each instance syncs with Redis every interval
// I (at most 1 s), so a hit admitted on one instance is known to every
// other instance holding the key within 2·I plus two round trips. Over a
// window, N instances therefore admit at most the limit plus the hits that
// reach them in those 2·I, and never more than N times the limit; a client
// that keeps to one instance gets no overshoot. docs/security.md (Limits
// and abuse protection) gives the whole argument.
//
// Refused hits are not counted. Windows are aligned to the clock, so
// instances need synchronised clocks (NTP). When Redis fails, each instance
// counts alone, logs once, and adds its hits to Redis when it answers
// again.
//
// # Limiter
//
// Limiter counts hits in fixed windows in Redis, so that every instance
// shares its counters, and counts in process while Redis fails.
//
// # Windows and Redis keys
//
// A window opens at the first hit on a key and lasts exactly the window
// length; the next hit after it closes opens a new one. Each (key, window
// length) pair is one Redis string key,
//
//	<Prefix><key>:<window in milliseconds>
//
// for example "actionkit:ratelimit:ip:203.0.113.9:300000". One Lua script
// counts the hit, sets the expiry on the first one, and returns the count
// and the time left, in one atomic round trip: concurrent callers on any
// number of instances never lose a hit. Only Redis's clock ends a window,
// so clock skew between instances does not matter. The window length is
// part of the key, so two limits on one key with different windows never
// mix their counts.
//
// Keys longer than [MaxKeyLength] bytes, and keys that already start with
// "sha256:", are replaced by "sha256:" and the hex SHA-256 of the key: an
// untrusted key can neither grow the Redis keys without bound nor pose as
// another key's digest.
//
// [Limiter.Peek] reads a key's window without counting a hit, for a budget
// checked before a request and spent only by some of its outcomes (failed
// password attempts).
//
// # Degraded mode
//
// When a Redis call fails (dial error, pool exhausted, timeout after
// [Config.Timeout], script error), the hit is counted in process, with the
// same semantics, and its [Decision] has Degraded set. The limiter logs one
// warning on entering this mode and one line when Redis answers again. It
// asks Redis again only once per [Config.RetryAfterFailure], with one
// request while the others stay in process, so a dead Redis adds no
// latency. While degraded, N instances allow up to N times the limit. A
// request whose own context is cancelled is counted in process without
// marking Redis unhealthy.
//
// Allow never fails and never panics; a limit of zero or less refuses every
// hit. The in-process counter forgets expired windows from a background
// sweeper, which [Limiter.Close] stops.
package ratelimit
