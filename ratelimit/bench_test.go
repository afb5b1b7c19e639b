package ratelimit

import (
	"context"
	"testing"
	"time"
)

func BenchmarkAllowRedis(b *testing.B) {
	l := newLimiter(b, Config{Pool: redisPool(b), Prefix: keyPrefix(b), Timeout: slack})
	benchmarkAllow(b, l)
}

func BenchmarkAllowLocal(b *testing.B) {
	benchmarkAllow(b, newLimiter(b, Config{}))
}

func benchmarkAllow(b *testing.B, l *Limiter) {
	b.Helper()
	ctx := context.Background()
	check := func(d Decision) {
		if d.Degraded || !d.Allowed {
			b.Fatalf("got %+v, want allowed, not degraded", d)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(l.Allow(ctx, "ip:203.0.113.9", 1<<30, time.Minute))
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				check(l.Allow(ctx, "ip:198.51.100.7", 1<<30, time.Minute))
			}
		})
	})
}

// BenchmarkAllowShared is the request-path cost of the Shared limiter, to
// compare with BenchmarkAllowRedis (today's per-request round trip) in the
// same run: the background sync runs meanwhile against the real Redis.
func BenchmarkAllowShared(b *testing.B) {
	s := NewShared(SharedConfig{Pool: redisPool(b), Prefix: keyPrefix(b)})
	b.Cleanup(s.Close)
	check := func(d Decision) {
		if !d.Allowed {
			b.Fatalf("got %+v, want allowed", d)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(s.Allow("ip:203.0.113.9", 1<<30, time.Minute))
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				check(s.Allow("ip:198.51.100.7", 1<<30, time.Minute))
			}
		})
	})
}
