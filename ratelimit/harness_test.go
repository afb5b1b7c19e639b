package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/internal/testenv"
)

// This file is the package's local test harness: a real Redis, a per-test key
// namespace, a settable clock and a log capture.

// slack is the Redis call budget of tests that expect a Redis decision: the
// race detector and parallel tests on a busy machine can make a first dial
// slower than the production default of 100ms.
const slack = 5 * time.Second

// deadAddr is a loopback port nothing listens on: dialling it fails at once.
const deadAddr = "127.0.0.1:1"

func redisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

func dialRedis(ctx context.Context) (redis.Conn, error) {
	return redis.DialURLContext(ctx, redisURL(), redis.DialConnectTimeout(2*time.Second))
}

func dialDead(ctx context.Context) (redis.Conn, error) {
	return redis.DialContext(ctx, "tcp", deadAddr, redis.DialConnectTimeout(time.Second))
}

// requireRedis skips the test when Redis does not answer, or fails it when
// CI=true.
func requireRedis(tb testing.TB) {
	tb.Helper()
	c, err := redis.DialURL(redisURL(), redis.DialConnectTimeout(2*time.Second))
	if err == nil {
		_, err = c.Do("PING")
		c.Close()
	}
	if err == nil {
		return
	}
	testenv.Missing(tb, "ratelimit: Redis at "+redisURL(), err, "set REDIS_URL")
}

// newPool returns a pool dialling with dial, closed when the test ends.
func newPool(tb testing.TB, dial func(context.Context) (redis.Conn, error)) *redis.Pool {
	tb.Helper()
	p := &redis.Pool{DialContext: dial, MaxIdle: 256, IdleTimeout: time.Minute}
	tb.Cleanup(func() { p.Close() })
	return p
}

// redisPool returns a pool on the test Redis (see requireRedis).
func redisPool(tb testing.TB) *redis.Pool {
	tb.Helper()
	requireRedis(tb)
	return newPool(tb, dialRedis)
}

// keyPrefix returns a fresh key namespace on the test Redis (see
// requireRedis) whose keys are deleted, with SCAN + DEL, when the test ends.
func keyPrefix(tb testing.TB) string {
	tb.Helper()
	requireRedis(tb)
	b := make([]byte, 8)
	rand.Read(b)
	prefix := "actionkit:test:ratelimit:" + hex.EncodeToString(b) + ":"
	tb.Cleanup(func() {
		for _, k := range scanKeys(tb, prefix) {
			if _, err := doRedis(tb, "DEL", k); err != nil {
				tb.Errorf("cleanup DEL %s: %v", k, err)
			}
		}
	})
	return prefix
}

// scanKeys lists the keys that start with prefix.
func scanKeys(tb testing.TB, prefix string) []string {
	tb.Helper()
	var keys []string
	cursor := "0"
	for {
		v, err := redis.Values(doRedis(tb, "SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			tb.Fatalf("SCAN: %v", err)
		}
		cursor, _ = redis.String(v[0], nil)
		batch, _ := redis.Strings(v[1], nil)
		keys = append(keys, batch...)
		if cursor == "0" {
			return keys
		}
	}
}

// doRedis runs one command on a fresh connection to the test Redis.
func doRedis(tb testing.TB, cmd string, args ...any) (any, error) {
	tb.Helper()
	c, err := redis.DialURL(redisURL(), redis.DialConnectTimeout(2*time.Second))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(cmd, args...)
}

// newLimiter returns New(cfg), closed when the test ends.
func newLimiter(tb testing.TB, cfg Config) *Limiter {
	tb.Helper()
	l := New(cfg)
	tb.Cleanup(l.Close)
	return l
}

// newFakeClock is a settable clock at a fixed start.
func newFakeClock() *testclock.Clock {
	return testclock.At(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
}

// logBuffer captures slog text output.
type logBuffer struct{ syncbuf.Buffer }

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// count returns how many captured lines are at level (e.g. "WARN").
func (b *logBuffer) count(level string) int {
	return strings.Count(b.String(), "level="+level+" ")
}

// localSize returns the number of windows a limiter holds in-process.
func localSize(l *Limiter) int {
	n := 0
	for i := range l.local.shards {
		s := &l.local.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
