package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/internal/syncbuf"
)

// testSecret signs the access tokens of test servers.
const testSecret = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz"

// testDataKey is the DATA_ENCRYPTION_KEY of the tests that need a
// production configuration.
const testDataKey = "5f3c1a9e27d84b60a1c2e3f405162738495a6b7c8d9eafb0c1d2e3f405162738"

// testServer is the real server, run in-process on port 0 with its own
// database and Redis key namespace.
type testServer struct {
	t       testing.TB
	URL     string
	env     map[string]string
	logs    *syncbuf.Buffer
	cancel  context.CancelFunc
	exit    chan int
	stopped bool
}

// testEnv returns the environment of a test server: a fresh database, a
// fresh Redis namespace, cheap password hashing and generous rate limits.
// Each override is "NAME=value".
func testEnv(t testing.TB, overrides ...string) map[string]string {
	t.Helper()
	redisURL, prefix, _ := redistest.New(t)
	env := map[string]string{
		"APP_ENV":                  "test",
		"PORT":                     "0",
		"DATABASE_URL":             pgtest.NewDSN(t),
		"REDIS_URL":                redisURL,
		"JOBS_NAMESPACE":           strings.TrimSuffix(prefix, ":"),
		"ACCESS_TOKEN_SECRET":      testSecret,
		"DATA_ENCRYPTION_KEY":      testDataKey,
		"PASSWORD_HASH_MEMORY_KIB": "1024",
		"PASSWORD_HASH_ITERATIONS": "1",
		"RATE_LIMIT_MAX":           "100000",
		"AUTH_RATE_LIMIT_MAX":      "100000",
		"LOG_LEVEL":                "debug",
		"SHUTDOWN_TIMEOUT":         "20s",
	}
	for _, o := range overrides {
		k, v, _ := strings.Cut(o, "=")
		env[k] = v
	}
	return env
}

// startServer runs the server with args (default: all roles) and env, and
// stops it when the test ends, requiring a clean exit.
func startServer(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	return startServerWith(t, env, nil, args...)
}

// startServerClock is startServer with the process's clock (nil: the
// system's), for tests that move time instead of waiting.
func startServerClock(t testing.TB, env map[string]string, now func() time.Time, args ...string) *testServer {
	t.Helper()
	return startServerWith(t, env, func(e *environment) { e.now = now }, args...)
}

// startServerWith is startServer with mod applied to the program's
// environment first (nil: none), for what only code can set.
func startServerWith(t testing.TB, env map[string]string, mod func(*environment), args ...string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{t: t, env: env, logs: &syncbuf.Buffer{}, cancel: cancel, exit: make(chan int, 1)}
	addrs := make(chan net.Addr, 1)
	// The test binary keeps Go's own collector unless a test sets GOGC:
	// the heap floor would be the whole process's, shared by every server
	// a test binary runs (the process tests run the real binary with it).
	lookup := func(k string) (string, bool) {
		v, ok := env[k]
		if !ok && k == "GOGC" {
			return "100", true
		}
		return v, ok
	}
	e := &environment{
		args:      args,
		getenv:    func(k string) string { v, _ := lookup(k); return v },
		lookupenv: lookup,
		stdout:    s.logs,
		stderr:    s.logs,
		listening: func(a net.Addr) { addrs <- a },
	}
	if mod != nil {
		mod(e)
	}
	go func() { s.exit <- run(ctx, e) }()
	select {
	case a := <-addrs:
		s.URL = "http://" + a.String()
	case code := <-s.exit:
		t.Fatalf("server exited with %d before listening:\n%s", code, s.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not listen within 30s:\n%s", s.logs.String())
	}
	t.Cleanup(func() {
		if code := s.stop(); code != 0 {
			t.Errorf("server exited with %d, want 0:\n%s", code, s.logs.String())
		}
	})
	return s
}

// stop sends the shutdown signal (again, harmlessly, if the test already
// did) and waits for the exit code; a failure to stop within 40 s fails t.
func (s *testServer) stop() int {
	if s.stopped {
		return 0
	}
	s.stopped = true
	s.cancel()
	select {
	case code := <-s.exit:
		return code
	case <-time.After(40 * time.Second):
		s.t.Errorf("server did not stop within 40s")
		return -1
	}
}

// apiResponse is a decoded answer.
type apiResponse struct {
	Status  int
	Header  http.Header
	Body    map[string]any
	Raw     string
	Cookies []*http.Cookie
}

// client is an HTTP client with its own cookie jar, like one browser.
type client struct {
	t    testing.TB
	base string
	http *http.Client
}

func (s *testServer) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: s.t, base: s.URL, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// call sends method path with body (a map or struct encoded as JSON, a
// string sent as is, or nil) and headers given as name, value pairs.
func (c *client) call(method, path string, body any, headers ...string) *apiResponse {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := &apiResponse{Status: res.StatusCode, Header: res.Header, Raw: string(raw), Cookies: res.Cookies()}
	if len(raw) > 0 && method != http.MethodHead && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			c.t.Fatalf("%s %s: answer is not JSON: %q", method, path, raw)
		}
	}
	return out
}

// want fails the test unless the answer has status and, for errors, code.
func (r *apiResponse) want(t testing.TB, status int, code string) *apiResponse {
	t.Helper()
	if r.Status != status {
		t.Fatalf("got %d, want %d: %s", r.Status, status, r.Raw)
	}
	if code != "" && r.Body["error"] != code {
		t.Fatalf("got error %v, want %s: %s", r.Body["error"], code, r.Raw)
	}
	if r.Body != nil && r.Body["status"] != float64(status) {
		t.Fatalf("body status %v differs from HTTP %d", r.Body["status"], status)
	}
	return r
}

func (r *apiResponse) str(key string) string {
	s, _ := r.Body[key].(string)
	return s
}

func (r *apiResponse) obj(key string) map[string]any {
	m, _ := r.Body[key].(map[string]any)
	return m
}

// tcpProxy forwards a local port to target, and can be taken down and
// brought back on the same port to simulate a dependency outage.
type tcpProxy struct {
	t      testing.TB
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
}

func newTCPProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *tcpProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close(); c.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
	up.Close()
}

// down closes the listener and every open connection.
func (p *tcpProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// up listens again on the same port.
func (p *tcpProxy) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy up: %v", err)
	}
	p.serve(ln)
}

// replaceHost points rawURL at the proxy's address.
func (p *tcpProxy) replaceHost(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

func hostOf(t testing.TB, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

var _ = fmt.Sprintf
