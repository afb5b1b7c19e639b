package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/poll"
)

func TestAllowUpToLimitThenRefuse(t *testing.T) {
	const window = 10 * time.Second
	tests := []struct {
		name  string
		redis bool
		limit int
	}{
		{name: "local limit 1", limit: 1},
		{name: "local limit 5", limit: 5},
		{name: "local limit 0 refuses all", limit: 0},
		{name: "redis limit 1", redis: true, limit: 1},
		{name: "redis limit 5", redis: true, limit: 5},
		{name: "redis limit 0 refuses all", redis: true, limit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Now: newFakeClock().Now, Timeout: slack}
			if tt.redis {
				cfg.Pool, cfg.Prefix = redisPool(t), keyPrefix(t)
			}
			l := newLimiter(t, cfg)
			ctx := context.Background()
			for i := 1; i <= tt.limit; i++ {
				d := l.Allow(ctx, "client", tt.limit, window)
				if !d.Allowed || d.Remaining != tt.limit-i || d.Limit != tt.limit || d.Degraded {
					t.Fatalf("hit %d: got %+v, want allowed, remaining %d, limit %d, not degraded", i, d, tt.limit-i, tt.limit)
				}
			}
			for i := range 2 {
				d := l.Allow(ctx, "client", tt.limit, window)
				if d.Allowed || d.Remaining != 0 || d.Degraded {
					t.Fatalf("extra hit %d: got %+v, want refused, remaining 0, not degraded", i+1, d)
				}
				if d.RetryAfter <= 0 || d.RetryAfter > window {
					t.Errorf("extra hit %d: got RetryAfter %v, want in (0, %v]", i+1, d.RetryAfter, window)
				}
			}
			if d := l.Allow(ctx, "other client", 1, window); !d.Allowed {
				t.Errorf("other key: got %+v, want allowed", d)
			}
		})
	}
}

func TestLocalNewWindowAllowsAgain(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Now: clock.Now})
	ctx := context.Background()
	const window = 10 * time.Second
	l.Allow(ctx, "k", 2, window)
	l.Allow(ctx, "k", 2, window)
	clock.Advance(window - time.Millisecond)
	d := l.Allow(ctx, "k", 2, window)
	if d.Allowed || d.RetryAfter != time.Millisecond {
		t.Fatalf("just before reset: got %+v, want refused with RetryAfter 1ms", d)
	}
	clock.Advance(time.Millisecond)
	d = l.Allow(ctx, "k", 2, window)
	if !d.Allowed || d.Remaining != 1 || d.RetryAfter != window {
		t.Fatalf("new window: got %+v, want allowed, remaining 1, RetryAfter %v", d, window)
	}
	if d := l.Allow(ctx, "k", 2, 2*window); !d.Allowed || d.Remaining != 1 {
		t.Errorf("same key, other window length: got %+v, want a separate counter", d)
	}
}

func TestRedisNewWindowAllowsAgain(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Config{Pool: redisPool(t), Prefix: keyPrefix(t), Timeout: slack})
	ctx := context.Background()
	const window = time.Second
	start := time.Now()
	l.Allow(ctx, "k", 2, window)
	l.Allow(ctx, "k", 2, window)
	if d := l.Allow(ctx, "k", 2, window); d.Allowed || d.Degraded {
		t.Fatalf("third hit: got %+v, want refused by redis", d)
	}
	var d Decision
	poll.UntilWhy(t, 5*time.Second, "the window to reopen", func() (bool, string) {
		d = l.Allow(ctx, "k", 2, window)
		return d.Allowed || d.Degraded, fmt.Sprintf("still closed: %+v", d)
	})
	if d.Degraded {
		t.Fatalf("got %+v, want a redis decision", d)
	}
	if d.Remaining != 1 {
		t.Errorf("first hit of new window: got remaining %d, want 1", d.Remaining)
	}
	if got := time.Since(start); got < window {
		t.Errorf("window reopened after %v, want at least %v", got, window)
	}
}

func TestRedisExactCountAcrossLimiters(t *testing.T) {
	t.Parallel()
	requireRedis(t)
	prefix := keyPrefix(t)
	limiters := []*Limiter{
		newLimiter(t, Config{Pool: newPool(t, dialRedis), Prefix: prefix, Timeout: slack}),
		newLimiter(t, Config{Pool: newPool(t, dialRedis), Prefix: prefix, Timeout: slack}),
	}
	const calls, limit, window = 200, 50, time.Minute
	var allowed, degraded atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range calls {
		wg.Go(func() {
			<-start
			d := limiters[i%2].Allow(context.Background(), "shared", limit, window)
			if d.Allowed {
				allowed.Add(1)
			}
			if d.Degraded {
				degraded.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := degraded.Load(); got != 0 {
		t.Fatalf("got %d degraded decisions, want 0", got)
	}
	if got := allowed.Load(); got != limit {
		t.Errorf("got %d allowed, want %d", got, limit)
	}
	n, err := redis.Int(doRedis(t, "GET", prefix+"shared:60000"))
	if err != nil || n != calls {
		t.Errorf("redis counter: got %d (err %v), want %d", n, err, calls)
	}
}

func TestDegradedWhenRedisIsDown(t *testing.T) {
	var dials atomic.Int64
	pool := newPool(t, func(ctx context.Context) (redis.Conn, error) {
		dials.Add(1)
		return dialDead(ctx)
	})
	clock, logs := newFakeClock(), &logBuffer{}
	l := newLimiter(t, Config{Pool: pool, Now: clock.Now, Logger: logs.logger(), RetryAfterFailure: time.Second})
	const limit, window = 3, 10 * time.Second
	for i := 1; i <= 10; i++ {
		d := l.Allow(context.Background(), "k", limit, window)
		if !d.Degraded {
			t.Fatalf("hit %d: got %+v, want degraded", i, d)
		}
		if want := i <= limit; d.Allowed != want {
			t.Fatalf("hit %d: got allowed %v, want %v", i, d.Allowed, want)
		}
		if !d.Allowed && (d.RetryAfter <= 0 || d.RetryAfter > window) {
			t.Errorf("hit %d: got RetryAfter %v, want in (0, %v]", i, d.RetryAfter, window)
		}
	}
	if got := dials.Load(); got != 1 {
		t.Errorf("dials within RetryAfterFailure: got %d, want 1", got)
	}
	clock.Advance(time.Second)
	for range 5 {
		l.Allow(context.Background(), "k", limit, window)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("dials after RetryAfterFailure: got %d, want 2", got)
	}
	if got := logs.count("WARN"); got != 1 {
		t.Errorf("got %d warnings, want 1; log:\n%s", got, logs)
	}
}

func TestRecoversWhenRedisComesBack(t *testing.T) {
	requireRedis(t)
	var alive atomic.Bool
	pool := newPool(t, func(ctx context.Context) (redis.Conn, error) {
		if alive.Load() {
			return dialRedis(ctx)
		}
		return dialDead(ctx)
	})
	clock, logs := newFakeClock(), &logBuffer{}
	l := newLimiter(t, Config{Pool: pool, Prefix: keyPrefix(t), Now: clock.Now,
		Logger: logs.logger(), Timeout: slack, RetryAfterFailure: 5 * time.Second})
	allow := func() Decision { return l.Allow(context.Background(), "k", 100, time.Minute) }

	if d := allow(); !d.Degraded {
		t.Fatalf("redis down: got %+v, want degraded", d)
	}
	alive.Store(true)
	clock.Advance(5*time.Second - time.Millisecond)
	if d := allow(); !d.Degraded {
		t.Fatalf("before RetryAfterFailure: got %+v, want still degraded", d)
	}
	clock.Advance(time.Millisecond)
	for i := range 5 {
		if d := allow(); d.Degraded || d.Remaining != 99-i {
			t.Fatalf("after recovery, hit %d: got %+v, want redis decision with remaining %d", i+1, d, 99-i)
		}
	}
	if got := logs.count("WARN"); got != 1 {
		t.Errorf("got %d warnings, want 1; log:\n%s", got, logs)
	}
	if got := logs.count("INFO"); got != 1 {
		t.Errorf("got %d info lines, want 1; log:\n%s", got, logs)
	}
}

func TestCancelledRequestDoesNotDegrade(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	l := newLimiter(t, Config{Pool: redisPool(t), Prefix: keyPrefix(t), Logger: logs.logger(), Timeout: slack})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := l.Allow(ctx, "k", 10, time.Minute); !d.Allowed || !d.Degraded {
		t.Errorf("cancelled request: got %+v, want allowed in-process", d)
	}
	if d := l.Allow(context.Background(), "k", 10, time.Minute); d.Degraded {
		t.Errorf("next request: got %+v, want a redis decision", d)
	}
	if got := logs.count("WARN"); got != 0 {
		t.Errorf("got %d warnings, want 0; log:\n%s", got, logs)
	}
}

func TestOddArgumentsNeverPanic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		key    string
		limit  int
		window time.Duration
	}{
		{name: "zero window", key: "k", limit: 1, window: 0},
		{name: "negative window", key: "k", limit: 1, window: -time.Hour},
		{name: "negative limit", key: "k", limit: -5, window: time.Second},
		{name: "empty key", key: "", limit: 1, window: time.Second},
		{name: "binary key", key: "\x00\xff*?[", limit: 1, window: time.Second},
	}
	pool := redisPool(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			redisLimiter := newLimiter(t, Config{Pool: pool, Prefix: keyPrefix(t), Timeout: slack})
			for _, l := range []*Limiter{newLimiter(t, Config{}), redisLimiter} {
				d := l.Allow(context.Background(), tt.key, tt.limit, tt.window)
				if d.Degraded {
					t.Errorf("got %+v, want not degraded", d)
				}
				if want := tt.limit > 0; d.Allowed != want {
					t.Errorf("got allowed %v, want %v", d.Allowed, want)
				}
				if d.RetryAfter <= 0 {
					t.Errorf("got RetryAfter %v, want > 0", d.RetryAfter)
				}
			}
		})
	}
}
