package ratelimit

import (
	"context"
	"testing"
	"time"
)

// TestPeekCountsNothing: Peek tells whether a next hit is within the limit
// without counting one, in Redis and in process alike, and a new window
// allows again.
func TestPeekCountsNothing(t *testing.T) {
	const window = 10 * time.Second
	for _, withRedis := range []bool{false, true} {
		name := map[bool]string{false: "local", true: "redis"}[withRedis]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			cfg := Config{Now: clock.Now, Timeout: slack}
			if withRedis {
				cfg.Pool, cfg.Prefix = redisPool(t), keyPrefix(t)
			}
			l := newLimiter(t, cfg)
			ctx := context.Background()
			for range 5 {
				if d := l.Peek(ctx, "client", 2, window); !d.Allowed || d.Remaining != 2 || d.Degraded {
					t.Fatalf("peek of an empty window: %+v", d)
				}
			}
			l.Allow(ctx, "client", 2, window)
			if d := l.Peek(ctx, "client", 2, window); !d.Allowed || d.Remaining != 1 {
				t.Fatalf("peek after one hit: %+v", d)
			}
			if d := l.Allow(ctx, "client", 2, window); !d.Allowed {
				t.Fatalf("second hit refused after peeks: %+v", d)
			}
			d := l.Peek(ctx, "client", 2, window)
			if d.Allowed || d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > window {
				t.Fatalf("peek of a full window: %+v", d)
			}
			if d := l.Peek(ctx, "other", 2, window); !d.Allowed {
				t.Errorf("another key: %+v", d)
			}
			if !withRedis {
				clock.Advance(window)
				if d := l.Peek(ctx, "client", 2, window); !d.Allowed || d.Remaining != 2 {
					t.Errorf("peek in a new window: %+v", d)
				}
			}
		})
	}
}
