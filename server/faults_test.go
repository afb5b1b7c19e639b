package main

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/faulttest"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
)

// unavailableMessage is SERVICE_UNAVAILABLE's message in locale.
func unavailableMessage(t testing.TB, locale string) string {
	t.Helper()
	cat, err := newCatalog([]string{"en", "es", "zh-TW"})
	if err != nil {
		t.Fatal(err)
	}
	return cat.Message(locale, errorcodes.ServiceUnavailable)
}

// wantUnavailable fails t unless r is a translated 503 SERVICE_UNAVAILABLE
// with Retry-After that clears no cookie.
func wantUnavailable(t testing.TB, what string, r *apiResponse, message string) {
	t.Helper()
	if r.Status != 503 || r.str("error") != "SERVICE_UNAVAILABLE" {
		t.Fatalf("%s: got %d %s, want 503 SERVICE_UNAVAILABLE", what, r.Status, r.Raw)
	}
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("%s: Retry-After = %q, want seconds", what, r.Header.Get("Retry-After"))
	}
	if r.str("message") != message || r.str("requestId") == "" {
		t.Errorf("%s: got %s, want message %q and a requestId", what, r.Raw, message)
	}
	if len(r.Header.Values("Set-Cookie")) != 0 {
		t.Errorf("%s: a 503 sets cookies: %v", what, r.Header.Values("Set-Cookie"))
	}
}

// metricValue reads one sample of /metrics, such as
// `actionkit_dependency_unavailable_total{dependency="redis"}`; 0 when absent.
func metricValue(t testing.TB, c *client, sample string) float64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(c.call(http.MethodGet, "/metrics", nil).Raw))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", sample, err)
			}
			return f
		}
	}
	return 0
}

// wantReady waits until /ready reports checks, and returns how long that took.
func wantReady(t testing.TB, c *client, status int, checks map[string]string) time.Duration {
	t.Helper()
	start := time.Now()
	var last *apiResponse
	poll.Until(t, 10*time.Second, "/ready answers "+strconv.Itoa(status), func() bool {
		last = c.call(http.MethodGet, "/ready", nil)
		return last.Status == status
	})
	for name, want := range checks {
		if got := last.obj("checks")[name]; got != want {
			t.Errorf("/ready: %s is %v, want %s: %s", name, got, want, last.Raw)
		}
	}
	return time.Since(start)
}

// TestPostgresOutage stops the server's PostgreSQL: every request that
// needs it answers a translated 503 SERVICE_UNAVAILABLE with Retry-After
// (never 500), counted by dependency; /ready reports the database down;
// nothing is decided, so no cookie is cleared. When PostgreSQL comes back
// the same process serves again, the old refresh cookie included.
func TestPostgresOutage(t *testing.T) {
	t.Parallel()
	pg := faulttest.NewPostgres(t)
	s := startServer(t, testEnv(t, "DATABASE_URL="+pg.URL("actionkit")), "api")
	u := register(t, s.client(), "web")
	createPost(t, u, "Before the outage")
	probe := s.client()
	es := unavailableMessage(t, "es")
	sample := `actionkit_dependency_unavailable_total{dependency="postgresql"}`

	pg.Stop()
	stopped := time.Now()
	lang := []string{"Accept-Language", "es"}
	wantUnavailable(t, "read", u.c.call(http.MethodGet, "/v1/users/read", nil, append(u.auth(), lang...)...), es)
	detected := time.Since(stopped)
	requests := []struct {
		name, path string
		body       any
		headers    []string
	}{
		{"read", "/v1/users/read", nil, u.auth()},
		{"refresh", "/v1/users/refresh", nil, nil},
		{"login", "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, nil},
		{"register", "/v1/users/register", map[string]any{"email": uniqueEmail(), "password": strongPassword}, nil},
		{"create post", "/v1/posts/create", map[string]any{"title": "During the outage"}, u.auth()},
		{"logout", "/v1/users/logout", nil, u.auth()},
	}
	answered := 1
	for round := 0; round < 3; round++ {
		for _, r := range requests {
			c := u.c
			if r.name == "login" || r.name == "register" {
				c = s.client() // logged-out callers
			}
			wantUnavailable(t, r.name, c.call(http.MethodPost, r.path, r.body, append(r.headers, lang...)...), es)
			answered++
		}
	}
	statuses, took := burst(s.URL+"/v1/users/read", u.auth(), 8, time.Second)
	for status, n := range statuses {
		answered += n
		if status != 503 {
			t.Errorf("%d concurrent reads answered %d during the outage", n, status)
		}
	}
	t.Logf("concurrent reads during the outage: %v in %s", statuses, took.Round(time.Millisecond))
	if got := metricValue(t, probe, sample); got < float64(answered) {
		t.Errorf("%s = %v, want at least %d", sample, got, answered)
	}
	readyDown := wantReady(t, probe, 503, map[string]string{"database": "down", "redis": "ok"})
	// A socket handshake cannot check its token either: the client is told
	// the service is unavailable, not that it was logged out.
	sc := sockettest.Start(t, s.URL, u.token, sockettest.Options{})
	if m, err := sc.Next(waitCtx(t)); err != nil || m.Type != "connect_error" || m.Message != "SERVICE_UNAVAILABLE" {
		t.Errorf("socket handshake during the outage: got %+v (%v), want connect_error SERVICE_UNAVAILABLE", m, err)
	}

	pg.Start()
	started := time.Now()
	poll.Until(t, 10*time.Second, "reads served again", func() bool {
		r := u.read(t)
		if r.Status != 200 && r.Status != 503 {
			t.Fatalf("read while PostgreSQL restarts: %d %s", r.Status, r.Raw)
		}
		return r.Status == 200
	})
	recovered := time.Since(started)
	u.c.call(http.MethodPost, "/v1/users/refresh", nil).want(t, 200, "")
	readyUp := wantReady(t, probe, 200, nil)
	t.Logf("PostgreSQL stopped: first 503 after %s, /ready 503 after a further %s; restarted: reads 200 after %s, /ready 200 after a further %s",
		detected.Round(time.Millisecond), readyDown.Round(time.Millisecond), recovered.Round(time.Millisecond), readyUp.Round(time.Millisecond))
}

// TestRedisOutage stops the server's Redis: an async publish answers a
// 503 SERVICE_UNAVAILABLE in the caller's locale with Retry-After, counted; reads and
// direct publishes go on (the rate limiter counts in process); /ready
// reports Redis down. When Redis comes back, async publishes are accepted
// again by the same process.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	rd := faulttest.NewRedis(t)
	s := startServer(t, testEnv(t, "REDIS_URL="+rd.URL(), "RATE_LIMIT_MAX=100000"), "api")
	c := s.client()
	reg := c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": uniqueEmail(), "password": strongPassword, "locale": "zh-TW"}).want(t, 201, "")
	u := &registered{c: c, token: reg.str("token")}
	later, now := createPost(t, u, "Published later"), createPost(t, u, "Published now")
	probe := s.client()
	zh := unavailableMessage(t, "zh-TW")
	sample := `actionkit_dependency_unavailable_total{dependency="redis"}`

	rd.Stop()
	stopped := time.Now()
	async := func() *apiResponse {
		return u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": later, "async": true}, u.auth()...)
	}
	wantUnavailable(t, "async publish", async(), zh)
	detected := time.Since(stopped)
	wantUnavailable(t, "async publish again", async(), zh)
	u.read(t).want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": now}, u.auth()...).want(t, 200, "")
	if got := metricValue(t, probe, sample); got < 2 {
		t.Errorf("%s = %v, want at least 2", sample, got)
	}
	readyDown := wantReady(t, probe, 503, map[string]string{"database": "ok", "redis": "down"})

	rd.Start()
	started := time.Now()
	poll.Until(t, 10*time.Second, "async publish accepted again", func() bool {
		r := async()
		if r.Status != 202 && r.Status != 503 {
			t.Fatalf("async publish while Redis restarts: %d %s", r.Status, r.Raw)
		}
		return r.Status == 202
	})
	recovered := time.Since(started)
	readyUp := wantReady(t, probe, 200, nil)
	t.Logf("Redis stopped: first 503 after %s, /ready 503 after a further %s; restarted: async publish 202 after %s, /ready 200 after a further %s",
		detected.Round(time.Millisecond), readyDown.Round(time.Millisecond), recovered.Round(time.Millisecond), readyUp.Round(time.Millisecond))
}

// burst sends GET url with headers from workers goroutines for about d and
// counts the answers by status (0: no answer).
func burst(url string, headers []string, workers int, d time.Duration) (map[int]int, time.Duration) {
	var mu sync.Mutex
	counts := map[int]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Timeout: 10 * time.Second}
			for time.Since(start) < d {
				status := 0
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				for i := 0; i+1 < len(headers); i += 2 {
					req.Header.Set(headers[i], headers[i+1])
				}
				if res, err := hc.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					status = res.StatusCode
				}
				mu.Lock()
				counts[status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return counts, time.Since(start)
}

// TestBrowserFeedAfterPostgresOutage: a tab opened while PostgreSQL is down
// has its socket handshake refused with SERVICE_UNAVAILABLE (the server
// cannot check the token); socket.io does not retry a refusal by itself, so
// the web client does, and the tab's feed goes live soon after PostgreSQL
// is back, without a reload or a new token.
func TestBrowserFeedAfterPostgresOutage(t *testing.T) {
	pg := faulttest.NewPostgres(t)
	s := startServer(t, testEnv(t, "DATABASE_URL="+pg.URL("actionkit")), "api")
	res := runBrowser(t, s, "feedoutage", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		switch m.Name {
		case "stop":
			pg.Stop()
		case "start":
			pg.Start()
		}
		return map[string]any{}
	}})["feedoutage"]
	if !strings.Contains(res.Str("refused"), "SERVICE_UNAVAILABLE") || res.Str("refusedLeft") != "" || res.Data["firstLive"] != true {
		t.Errorf("the tabs: %v", res.Data)
	}
	// The client waits 0.5-1 s, then 1-2 s, 2-4 s... between tries: with
	// PostgreSQL back within a few seconds, the feed is live well within 20 s.
	if ms := time.Duration(res.Int("liveAfterMs")) * time.Millisecond; ms > 20*time.Second {
		t.Errorf("the feed went live %v after PostgreSQL restarted", ms)
	}
	t.Logf("the refused tab showed %q; its feed was live %d ms after PostgreSQL was started again", res.Str("refused"), res.Int("liveAfterMs"))
}
