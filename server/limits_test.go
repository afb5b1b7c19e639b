package main

import (
	"net/http"
	"strconv"
	"testing"
)

func TestGlobalRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "RATE_LIMIT_MAX=3", "RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	for i := 0; i < 3; i++ {
		c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	}
	r := c.call(http.MethodGet, "/v1/users/read", nil).want(t, 429, "TOO_MANY_REQUESTS")
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After = %q, want 1-60 seconds", r.Header.Get("Retry-After"))
	}
	if r.str("message") == "" || r.str("requestId") == "" {
		t.Errorf("429 body incomplete: %s", r.Raw)
	}
	c.call(http.MethodGet, "/nope", nil).want(t, 429, "TOO_MANY_REQUESTS")
	for _, path := range []string{"/health", "/ready", "/metrics"} {
		for i := 0; i < 5; i++ {
			if got := c.call(http.MethodGet, path, nil).Status; got != 200 {
				t.Fatalf("%s answered %d; it is exempt from the limiter", path, got)
			}
		}
	}
}

func TestAuthRateLimitPerPath(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "AUTH_RATE_LIMIT_MAX=2", "AUTH_RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	creds := map[string]any{"email": "who@example.com", "password": "Not-the-password-1"}
	for i := 0; i < 2; i++ {
		c.call(http.MethodPost, "/v1/users/login", creds).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	c.call(http.MethodPost, "/v1/users/login", creds).want(t, 429, "TOO_MANY_REQUESTS")
	// Other credential paths have budgets of their own, and other actions
	// only the global one.
	c.call(http.MethodPost, "/v1/users/refresh", nil).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	c.call(http.MethodPost, "/v1/admins/login", creds).want(t, 400, "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	for i := 0; i < 5; i++ {
		c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	}
}

// TestRateLimitWithoutRedis degrades to counting in the process: requests
// are never failed because Redis is down, and the limit still holds.
func TestRateLimitWithoutRedis(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "REDIS_URL=redis://127.0.0.1:1/0", "RATE_LIMIT_MAX=2", "RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	c.call(http.MethodGet, "/v1/users/read", nil).want(t, 429, "TOO_MANY_REQUESTS")
	r := c.call(http.MethodGet, "/ready", nil).want(t, 503, "")
	if r.obj("checks")["redis"] != "down" {
		t.Errorf("ready = %s", r.Raw)
	}
}

func TestTrustProxyTakesLastHop(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=1", "RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	c.call(http.MethodGet, "/nope", nil, "X-Forwarded-For", "9.9.9.9, 203.0.113.1").want(t, 404, "NOT_FOUND")
	c.call(http.MethodGet, "/nope", nil, "X-Forwarded-For", "8.8.8.8, 203.0.113.1").want(t, 429, "TOO_MANY_REQUESTS")
	c.call(http.MethodGet, "/nope", nil, "X-Forwarded-For", "203.0.113.2").want(t, 404, "NOT_FOUND")
}
