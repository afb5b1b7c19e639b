package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/actionkit/actionkit/webclient"
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
	for _, path := range []string{"/health", "/ready", "/metrics", jwksPath} {
		for i := 0; i < 5; i++ {
			if got := c.call(http.MethodGet, path, nil).Status; got != 200 {
				t.Fatalf("%s answered %d; it is exempt from the limiter", path, got)
			}
		}
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

// TestStaticFilesNotCounted: twenty loads of every page, script and
// stylesheet from one address leave its global budget untouched: the
// RATE_LIMIT_MAX action requests that follow all pass, and only the next
// is refused.
func TestStaticFilesNotCounted(t *testing.T) {
	t.Parallel()
	const limit = 3
	s := startServer(t, testEnv(t, "RATE_LIMIT_MAX="+strconv.Itoa(limit), "RATE_LIMIT_WINDOW=1h"), "api")
	c := s.client()
	assets := append(append(webclient.Library(), webclient.Demo()...), webclient.Admin()...)
	for range 20 {
		for _, a := range assets {
			if r := c.call(http.MethodGet, a.Path, nil); r.Status != 200 {
				t.Fatalf("GET %s: %d", a.Path, r.Status)
			}
		}
	}
	for range limit {
		c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	}
	c.call(http.MethodGet, "/v1/users/read", nil).want(t, 429, "TOO_MANY_REQUESTS")
	// An unknown path under the assets' prefixes is counted like any other.
	c.call(http.MethodGet, "/demo/nope.js", nil).want(t, 429, "TOO_MANY_REQUESTS")
	if r := c.call(http.MethodGet, "/demo/demo.js", nil); r.Status != 200 {
		t.Errorf("an asset after the budget is spent: %d", r.Status)
	}
}
