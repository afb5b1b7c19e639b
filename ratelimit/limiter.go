package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout           = 100 * time.Millisecond
	DefaultRetryAfterFailure = time.Second
	DefaultSweepInterval     = time.Minute
)

// MaxKeyLength is the longest key used verbatim; longer keys, and keys that
// already start with "sha256:", are replaced by "sha256:" followed by the hex
// SHA-256 digest of the key (71 bytes).
const MaxKeyLength = 200

const hashedKeyPrefix = "sha256:"

// hitScript counts one hit on KEYS[1] and returns {count, pttl}. The expiry
// is set on the first hit of a window, and repaired if the key somehow lost
// it, so a counter can never live forever.
const hitScript = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
	ttl = tonumber(ARGV[1])
end
return {n, ttl}
`

// Config configures a Limiter. The zero value counts in-process only.
type Config struct {
	// Pool is the Redis connection pool; nil means in-process counting only.
	// The Limiter does not close it. Give it a DialContext (or a dial with a
	// connect timeout): a plain Dial ignores the call deadline.
	Pool *redis.Pool
	// Prefix starts every Redis key, e.g. "actionkit:ratelimit:".
	Prefix string
	// Logger receives the degraded/recovered lines; nil discards them.
	Logger *slog.Logger
	// Now is the clock of in-process windows and of RetryAfterFailure;
	// nil means time.Now. Redis windows always follow the Redis clock.
	Now func() time.Time
	// Timeout bounds each Redis call, connection included; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// RetryAfterFailure is how long the limiter stays in-process after a
	// Redis failure before one request tries Redis again; zero means
	// DefaultRetryAfterFailure.
	RetryAfterFailure time.Duration
	// SweepInterval is how often expired in-process windows are forgotten;
	// zero means DefaultSweepInterval.
	SweepInterval time.Duration
}

// Decision is the outcome of one Allow call.
type Decision struct {
	// Allowed reports whether the hit is within the limit.
	Allowed bool
	// Limit is the limit the hit was checked against.
	Limit int
	// Remaining is how many more hits the current window allows.
	Remaining int
	// RetryAfter is the time until the current window resets. It is always
	// positive when Allowed is false; rounding it up to whole seconds for a
	// Retry-After header is the caller's job.
	RetryAfter time.Duration
	// Degraded reports that the hit was counted in-process because Redis was
	// unavailable. It is false when Config.Pool is nil.
	Degraded bool
}

// Limiter counts hits per key in fixed windows. It is safe for concurrent
// use; create it with New and stop it with Close.
type Limiter struct {
	pool       *redis.Pool
	prefix     string
	log        *slog.Logger
	now        func() time.Time
	timeout    time.Duration
	retryAfter time.Duration
	script     *redis.Script
	local      *localCounter

	// retryAt is 0 while Redis is healthy; otherwise the UnixNano time from
	// which one request may try Redis again.
	retryAt atomic.Int64

	stop      chan struct{}
	stopOnce  sync.Once
	sweepDone chan struct{}
}

// New returns a Limiter for cfg and starts its in-process sweeper.
func New(cfg Config) *Limiter {
	l := &Limiter{
		pool:       cfg.Pool,
		prefix:     cfg.Prefix,
		log:        cfg.Logger,
		now:        cfg.Now,
		timeout:    orDefault(cfg.Timeout, DefaultTimeout),
		retryAfter: orDefault(cfg.RetryAfterFailure, DefaultRetryAfterFailure),
		script:     redis.NewScript(1, hitScript),
		local:      newLocalCounter(),
		stop:       make(chan struct{}),
		sweepDone:  make(chan struct{}),
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	go l.sweepLoop(orDefault(cfg.SweepInterval, DefaultSweepInterval))
	return l
}

// Close stops the background sweeper. It does not close Config.Pool. Allow
// keeps working after Close, without sweeping. Close is idempotent.
func (l *Limiter) Close() {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.sweepDone
}

// Allow counts one hit on key in the current window of the given length and
// reports whether it is within limit. Windows shorter than a millisecond are
// treated as one millisecond.
func (l *Limiter) Allow(ctx context.Context, key string, limit int, window time.Duration) Decision {
	c := l.count(ctx, key, window, l.redisHit, l.local.hit)
	return decide(c.hits, limit, c.untilReset, c.degraded)
}

// windowCount is a window's count of hits as Allow or Peek read it.
type windowCount struct {
	hits       int64
	untilReset time.Duration
	degraded   bool // counted in this process while Redis is unavailable
}

// count reads the window of key through Redis with remote, or, while Redis
// is unavailable (or there is none), through this process's counts with
// local; a Redis failure marks it unavailable for a while.
func (l *Limiter) count(ctx context.Context, key string, window time.Duration,
	remote func(context.Context, string, time.Duration) (int64, time.Duration, error),
	local func(string, time.Duration, int64) (int64, int64)) windowCount {
	key = capKey(key)
	window = max(window, time.Millisecond).Round(time.Millisecond)
	now := l.now().UnixNano()
	if l.pool != nil && l.shouldTryRedis(now) {
		hits, ttl, err := remote(ctx, key, window)
		if err == nil {
			l.markHealthy()
			return windowCount{hits: hits, untilReset: ttl}
		}
		if ctx.Err() == nil {
			l.markFailed(now, err)
		}
	}
	hits, reset := local(key, window, now)
	return windowCount{hits: hits, untilReset: time.Duration(reset - now), degraded: l.pool != nil}
}

// decide turns a window count into a Decision.
func decide(count int64, limit int, untilReset time.Duration, degraded bool) Decision {
	remaining := int64(limit) - count
	return Decision{
		Allowed:    remaining >= 0,
		Limit:      limit,
		Remaining:  int(max(remaining, 0)),
		RetryAfter: max(untilReset, time.Millisecond),
		Degraded:   degraded,
	}
}

// shouldTryRedis reports whether this call may use Redis. While degraded only
// the first call after retryAt does, so a dead Redis is probed once per
// RetryAfterFailure instead of by every request.
func (l *Limiter) shouldTryRedis(now int64) bool {
	at := l.retryAt.Load()
	if at == 0 {
		return true
	}
	if now < at {
		return false
	}
	return l.retryAt.CompareAndSwap(at, now+int64(l.retryAfter))
}

// markHealthy leaves degraded mode, logging once when it does.
func (l *Limiter) markHealthy() {
	if l.retryAt.Load() != 0 && l.retryAt.Swap(0) != 0 {
		l.log.Info("ratelimit: redis available again, counting in redis")
	}
}

// markFailed enters (or stays in) degraded mode, logging once on entry.
func (l *Limiter) markFailed(now int64, err error) {
	if l.retryAt.Swap(now+int64(l.retryAfter)) == 0 {
		l.log.Warn("ratelimit: redis unavailable, counting in-process",
			"err", err, "retry_after", l.retryAfter)
	}
}

// redisHit runs the hit script on the Redis key of (key, window) and returns
// the window's count and time to live.
func (l *Limiter) redisHit(ctx context.Context, key string, window time.Duration) (int64, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	ms := window.Milliseconds()
	rkey := l.prefix + key + ":" + strconv.FormatInt(ms, 10)
	reply, err := l.eval(ctx, conn, rkey, ms)
	if err != nil {
		return 0, 0, err
	}
	return parseHitReply(reply)
}

// eval runs the hit script with the time left in ctx as the read deadline.
// It sets a socket deadline rather than using redigo's DoContext, which
// starts a goroutine for every call.
func (l *Limiter) eval(ctx context.Context, conn redis.Conn, rkey string, ms int64) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := l.timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	reply, err := redis.DoWithTimeout(conn, timeout, "EVALSHA", l.script.Hash(), 1, rkey, ms)
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT ") {
		reply, err = redis.DoWithTimeout(conn, timeout, "EVAL", hitScript, 1, rkey, ms)
	}
	return reply, err
}

var errBadReply = errors.New("ratelimit: unexpected script reply")

// parseHitReply reads the {count, pttl} array returned by hitScript.
func parseHitReply(reply any) (int64, time.Duration, error) {
	vals, ok := reply.([]any)
	if !ok || len(vals) != 2 {
		return 0, 0, fmt.Errorf("%w: %T", errBadReply, reply)
	}
	count, ok1 := vals[0].(int64)
	ttl, ok2 := vals[1].(int64)
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("%w: %T, %T", errBadReply, vals[0], vals[1])
	}
	return count, time.Duration(ttl) * time.Millisecond, nil
}

// capKey returns key unchanged when it is at most MaxKeyLength bytes long,
// and otherwise a fixed-length digest of it. Short keys that look like a
// digest are hashed too, so no key can alias another key's digest.
func capKey(key string) string {
	if len(key) <= MaxKeyLength && !strings.HasPrefix(key, hashedKeyPrefix) {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return hashedKeyPrefix + hex.EncodeToString(sum[:])
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
