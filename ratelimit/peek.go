package ratelimit

import (
	"context"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
)

// peekScript returns {count, pttl} of KEYS[1] without counting a hit; a
// missing key is {0, -2}.
const peekScript = `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
`

// Peek reports whether one more hit on key would be within limit in the
// current window, without counting it. It serves a budget checked before
// the costly part of a request and spent only once its outcome is known
// (failures). Its Decision is Allow's for that next hit, except that
// Remaining counts the hits the window still allows, that one included.
func (l *Limiter) Peek(ctx context.Context, key string, limit int, window time.Duration) Decision {
	c := l.count(ctx, key, window, l.redisPeek, l.local.peek)
	return peekDecision(c.hits, limit, c.untilReset, window, c.degraded)
}

// peekDecision is the Decision for a next hit on a window holding count
// hits and closing in untilReset (not positive: no window open).
func peekDecision(count int64, limit int, untilReset, window time.Duration, degraded bool) Decision {
	if untilReset <= 0 {
		count, untilReset = 0, window
	}
	d := decide(count+1, limit, untilReset, degraded)
	if d.Allowed {
		d.Remaining++
	}
	return d
}

// redisPeek reads the count and time to live of the Redis key of (key,
// window).
func (l *Limiter) redisPeek(ctx context.Context, key string, window time.Duration) (int64, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	conn, err := l.pool.GetContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	timeout := l.timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	rkey := l.prefix + key + ":" + strconv.FormatInt(window.Milliseconds(), 10)
	reply, err := redis.DoWithTimeout(conn, timeout, "EVAL", peekScript, 1, rkey)
	if err != nil {
		return 0, 0, err
	}
	return parseHitReply(reply)
}

// peek returns the count of (key, window) at now and the UnixNano time
// its window closes (now when none is open).
func (c *localCounter) peek(key string, window time.Duration, now int64) (int64, int64) {
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[localKey{key: key, window: window}]
	s.mu.Unlock()
	if !ok || now >= e.reset {
		return 0, now
	}
	return e.count, e.reset
}
