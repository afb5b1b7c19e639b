package main

import (
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkHTTP measures whole requests through the real server, in this
// process, with 4 keep-alive clients per CPU running in parallel. "health" is the
// baseline measured in the same run: the full middleware and framework
// path with no database. Run:
//
//	go test -run '^$' -bench HTTP -benchtime 3s ./server
func BenchmarkHTTP(b *testing.B) {
	env := testEnv(b, "LOG_LEVEL=warn", "RATE_LIMIT_MAX=0", "AUTH_RATE_LIMIT_MAX=0",
		"PASSWORD_HASH_MEMORY_KIB=19456", "PASSWORD_HASH_ITERATIONS=2")
	s := startServer(b, env, "api")
	b.Run("health", func(b *testing.B) {
		runParallel(b, s, func(c *client) { c.call(http.MethodGet, "/health", nil) })
	})
	user := register(b, s.client(), "app")
	b.Run("read", func(b *testing.B) {
		runParallel(b, s, func(c *client) { c.call(http.MethodGet, "/v1/users/read", nil, user.auth()...) })
	})
	b.Run("refresh", func(b *testing.B) {
		var failures atomic.Int64
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			c := s.client()
			token := c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": user.email, "password": strongPassword}, "X-Client", "app").str("refreshToken")
			for pb.Next() {
				r := refreshWith(c, http.MethodPost, token)
				if r.Status != 200 {
					failures.Add(1)
					return
				}
				token = r.str("refreshToken")
			}
		})
		if failures.Load() > 0 {
			b.Fatalf("%d refreshes failed", failures.Load())
		}
	})
	b.Run("login", func(b *testing.B) {
		runParallel(b, s, func(c *client) {
			c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": user.email, "password": strongPassword}, "X-Client", "app")
		})
	})
}

func runParallel(b *testing.B, s *testServer, fn func(c *client)) {
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		c := s.client()
		c.http.Jar = nil
		for pb.Next() {
			fn(c)
		}
	})
}
