package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

func TestProbes(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	health := c.call(http.MethodGet, "/health", nil).want(t, 200, "")
	if health.Raw != `{"status":200,"success":true}` {
		t.Errorf("/health body = %s", health.Raw)
	}
	ready := c.call(http.MethodGet, "/ready", nil).want(t, 200, "")
	if ready.Raw != `{"status":200,"success":true}` {
		t.Errorf("/ready body = %s", ready.Raw)
	}
	if head := c.call(http.MethodHead, "/health", nil); head.Status != 200 || head.Raw != "" {
		t.Errorf("HEAD /health = %d %q", head.Status, head.Raw)
	}
	if r := c.call(http.MethodPost, "/health", nil); r.Status != 405 {
		t.Errorf("POST /health = %d, want 405", r.Status)
	}
	if id := health.Header.Get("X-Request-ID"); id == "" {
		t.Error("probes carry no X-Request-ID")
	}
}

// TestReadyFollowsDependencies takes PostgreSQL and then Redis away behind
// TCP proxies: /ready must turn 503 within 2 s, name the dependency that
// is down, and recover when it returns.
func TestReadyFollowsDependencies(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pg := newTCPProxy(t, hostOf(t, env["DATABASE_URL"]))
	rd := newTCPProxy(t, hostOf(t, env["REDIS_URL"]))
	env["DATABASE_URL"] = pg.replaceHost(env["DATABASE_URL"])
	env["REDIS_URL"] = rd.replaceHost(env["REDIS_URL"])
	s := startServer(t, env, "api")
	c := s.client()
	c.call(http.MethodGet, "/ready", nil).want(t, 200, "")
	for _, dep := range []struct {
		name  string
		proxy *tcpProxy
	}{{"database", pg}, {"redis", rd}} {
		t.Run(dep.name, func(t *testing.T) {
			dep.proxy.down()
			start := time.Now()
			var last *apiResponse
			poll.Until(t, 2*time.Second, dep.name+" down reported", func() bool {
				last = c.call(http.MethodGet, "/ready", nil)
				return last.Status == 503
			})
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %s", took)
			}
			checks := last.obj("checks")
			if last.Body["reason"] != "dependency_unavailable" || checks[dep.name] != "down" || last.Body["success"] != false {
				t.Errorf("got %s", last.Raw)
			}
			for other, state := range checks {
				if other != dep.name && state != "ok" {
					t.Errorf("%s reported %v while only %s is down", other, state, dep.name)
				}
			}
			if h := c.call(http.MethodGet, "/health", nil); h.Status != 200 {
				t.Errorf("/health = %d while %s is down; liveness checks no dependency", h.Status, dep.name)
			}
			dep.proxy.up()
			poll.Until(t, 5*time.Second, dep.name+" recovery reported", func() bool {
				return c.call(http.MethodGet, "/ready", nil).Status == 200
			})
		})
	}
}

// TestShutdownDrains signals shutdown while a request is in flight: the
// probes answer 503 at once, actions are still served during the drain,
// the in-flight request completes, and the process exits 0.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "SHUTDOWN_DRAIN=1500ms"), "api")
	c := s.client()
	body, unblock := newGatedBody(`{"email":"nobody@example.com","password":"Wrong-password-1"}`)
	inflight := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/users/login", body)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
			inflight <- nil
			return
		}
		res.Body.Close()
		inflight <- res
	}()
	s.waitInFlight(t, 1)
	s.cancel()
	poll.Until(t, 2*time.Second, "draining probes", func() bool {
		return c.call(http.MethodGet, "/health", nil).Status == 503
	})
	r := c.call(http.MethodGet, "/ready", nil).want(t, 503, "SERVICE_UNAVAILABLE")
	if r.str("requestId") == "" {
		t.Errorf("503 body lacks requestId: %s", r.Raw)
	}
	c.call(http.MethodGet, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	unblock()
	if res := <-inflight; res == nil || res.StatusCode != 400 {
		t.Errorf("in-flight login: got %v, want its 400 answer", res)
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit code %d, want 0:\n%s", code, s.logs.String())
	}
	if !strings.Contains(s.logs.String(), "stopped cleanly") {
		t.Errorf("no clean stop logged")
	}
}

// gatedBody is a request body whose end is held back until released.
type gatedBody struct {
	data    []byte
	release chan struct{}
	sent    bool
}

func newGatedBody(s string) (*gatedBody, func()) {
	b := &gatedBody{data: []byte(s), release: make(chan struct{})}
	return b, func() { close(b.release) }
}

func (b *gatedBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		n := copy(p, b.data[:1])
		b.data = b.data[1:]
		return n, nil
	}
	<-b.release
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

// waitInFlight waits until the server reports n requests in flight.
func (s *testServer) waitInFlight(t testing.TB, n int) {
	t.Helper()
	want := fmt.Sprintf("actionkit_http_requests_in_flight %d\n", n)
	c := s.client()
	poll.Until(t, 10*time.Second, "request in flight", func() bool {
		return strings.Contains(c.call(http.MethodGet, "/metrics", nil).Raw, want)
	})
}

// TestShutdownTimeoutForcesExit: a request that never finishes cannot hold
// the process past SHUTDOWN_TIMEOUT; it then exits 1.
func TestShutdownTimeoutForcesExit(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "SHUTDOWN_TIMEOUT=1s"), "api")
	body, unblock := newGatedBody(`{"email":"x@example.com","password":"y"}`)
	defer unblock()
	go func() {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/users/login", body)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	s.waitInFlight(t, 1)
	start := time.Now()
	s.cancel()
	s.stopped = true
	select {
	case code := <-s.exit:
		if code != 1 {
			t.Errorf("exit code %d, want 1:\n%s", code, s.logs.String())
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %s to give up", took)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not give up after SHUTDOWN_TIMEOUT")
	}
	if !strings.Contains(s.logs.String(), "shutdown timed out") {
		t.Errorf("no forced-exit log")
	}
}
