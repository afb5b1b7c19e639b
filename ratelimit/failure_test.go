package ratelimit

import (
	"cmp"
	"context"
	"net"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// silentServer accepts connections and never answers, like a hung Redis.
func silentServer(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestRedisFailuresDegrade(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T) Config
		wantLog string // regexp the warning must match
	}{
		{name: "connection refused", setup: func(t *testing.T) Config {
			return Config{Pool: newPool(t, dialDead)}
		}, wantLog: "connection refused"},
		{name: "no answer within Timeout", setup: func(t *testing.T) Config {
			addr := silentServer(t)
			return Config{Pool: newPool(t, func(ctx context.Context) (redis.Conn, error) {
				return redis.DialContext(ctx, "tcp", addr)
			})}
		}, wantLog: "timeout|deadline exceeded"},
		{name: "script error", setup: func(t *testing.T) Config {
			cfg := Config{Pool: redisPool(t), Prefix: keyPrefix(t), Timeout: slack}
			if _, err := doRedis(t, "HSET", cfg.Prefix+"k:60000", "not", "a counter"); err != nil {
				t.Fatalf("HSET: %v", err)
			}
			return cfg
		}, wantLog: "WRONGTYPE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &logBuffer{}
			cfg := tt.setup(t)
			cfg.Logger = logs.logger()
			cfg.Timeout = cmp.Or(cfg.Timeout, 50*time.Millisecond)
			l := newLimiter(t, cfg)
			start := time.Now()
			for i := 1; i <= 3; i++ {
				d := l.Allow(context.Background(), "k", 2, time.Minute)
				if !d.Degraded || d.Allowed != (i <= 2) {
					t.Fatalf("hit %d: got %+v, want degraded, allowed %v", i, d, i <= 2)
				}
			}
			if got := time.Since(start); got > cfg.Timeout+time.Second {
				t.Errorf("3 calls took %v, want at most one Timeout (%v)", got, cfg.Timeout)
			}
			if got := logs.count("WARN"); got != 1 || !regexp.MustCompile(tt.wantLog).MatchString(logs.String()) {
				t.Errorf("got %d warnings, want 1 mentioning %q; log:\n%s", got, tt.wantLog, logs)
			}
		})
	}
}
