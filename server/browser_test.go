package main

import (
	"bytes"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/webclient"
)

// The browser tests run the web client (webclient/assets) in headless
// Chromium against the real server, one scenario of
// internal/browsertest/scenarios each. They run one after another: the race
// scenarios measure what happens at one instant.

// browserURL is the server's address for a browser: 127.0.0.1, which is a
// secure context (the Web Locks API needs one), not the listener's [::].
func browserURL(t testing.TB, s *testServer) string {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:" + u.Port()
	return u.String()
}

// artifactsDir is where screenshots go: $ACTIONKIT_ARTIFACTS, else
// actionkit-artifacts in the temporary directory (kept after the test).
func artifactsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ACTIONKIT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "actionkit-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("browser artefacts in %s", dir)
	return dir
}

// sessionCounts is what the refresh tests read of a user's sessions.
type sessionCounts struct {
	Rotated      int   `db:"rotated" json:"rotated"`
	Active       int   `db:"active" json:"active"`
	TokenVersion int64 `db:"token_version" json:"tokenVersion"`
}

func countsOf(t testing.TB, db *sqlx.DB, userID string) sessionCounts {
	t.Helper()
	var c sessionCounts
	err := db.GetContext(t.Context(), &c, `SELECT
		count(*) FILTER (WHERE replaced_by_session_id IS NOT NULL) AS rotated,
		count(*) FILTER (WHERE revoked_at IS NULL AND expires_at > now()) AS active,
		(SELECT token_version FROM users WHERE id = $1) AS token_version
		FROM user_sessions WHERE user_id = $1`, userID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runBrowser(t *testing.T, s *testServer, scenario string, opts browsertest.Options) browsertest.Results {
	t.Helper()
	return browsertest.Run(t, browserURL(t, s), scenario, opts)
}

func TestBrowserAssetsServed(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	for _, a := range append(append(webclient.Library(), webclient.Demo()...), webclient.Admin()...) {
		r := c.call(http.MethodGet, a.Path, nil)
		h := r.Header
		if r.Status != 200 || h.Get("Content-Type") != a.ContentType || h.Get("ETag") != a.ETag ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != a.CacheControl ||
			h.Get("Content-Security-Policy") != webclient.ContentSecurityPolicy || h.Get("X-Request-ID") == "" {
			t.Errorf("GET %s: %d %v", a.Path, r.Status, h)
		}
		if !bytes.Equal([]byte(r.Raw), a.Body()) {
			t.Errorf("GET %s: the body differs from the embedded file", a.Path)
		}
		if want := map[bool]string{true: webclient.PageCache, false: webclient.AssetCache}[strings.HasPrefix(a.ContentType, "text/html")]; a.CacheControl != want {
			t.Errorf("%s: Cache-Control %q, want %q", a.Path, a.CacheControl, want)
		}
		if r := c.call(http.MethodGet, a.Path, nil, "If-None-Match", a.ETag); r.Status != 304 || r.Raw != "" ||
			r.Header.Get("ETag") != a.ETag || r.Header.Get("Cache-Control") != a.CacheControl {
			t.Errorf("GET %s with its ETag: %d %q %v, want 304 with the validator and the lifetime", a.Path, r.Status, r.Raw, r.Header)
		}
		if r := c.call(http.MethodHead, a.Path, nil); r.Status != 200 || r.Raw != "" || r.Header.Get("ETag") != a.ETag {
			t.Errorf("HEAD %s: %d %q", a.Path, r.Status, r.Raw)
		}
		if r := c.call(http.MethodPost, a.Path, nil); r.Status != 405 {
			t.Errorf("POST %s: %d, want 405", a.Path, r.Status)
		}
	}
	for path, module := range map[string]string{"/demo": "/demo/demo.js", "/admin": "/admin/admin.js"} {
		page := c.call(http.MethodGet, path, nil).Raw
		scripts := regexp.MustCompile(`<script\b([^>]*)>([^<]*)</script>`).FindAllStringSubmatch(page, -1)
		if len(scripts) != 2 || strings.Count(page, "<script") != 2 {
			t.Fatalf("%s has %d scripts, want its module and the loader", path, len(scripts))
		}
		for i, src := range []string{`type="module" src="` + module + `"`, `src="/demo/load.js"`} {
			if m := scripts[i]; strings.TrimSpace(m[1]) != src || strings.TrimSpace(m[2]) != "" {
				t.Errorf("%s: script %d is %s, want <script %s>", path, i, m[0], src)
			}
		}
		if regexp.MustCompile(`<style|\sstyle=|\son[a-z]+=`).MatchString(page) {
			t.Errorf("%s has an inline style or event handler", path)
		}
	}
	lib := c.call(http.MethodGet, "/client/socket.io.esm.min.js", nil).Raw
	if !strings.HasPrefix(lib, "/*!\n * Socket.IO v4.8.1\n") {
		t.Errorf("the vendored socket.io-client is not 4.8.1 with its license header: %.60q", lib)
	}
}

func TestBrowserDemoConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"on by default", map[string]string{}, true},
		{"off in production", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey}, false},
		{"on in production when asked", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey, "DEMO_ENABLED": "true"}, true},
		{"off when asked", map[string]string{"DEMO_ENABLED": "false"}, false},
	} {
		c, err := loadEnv(tc.env)
		if err != nil || c.DemoEnabled != tc.want {
			t.Errorf("%s: DemoEnabled = %v (%v), want %v", tc.name, c != nil && c.DemoEnabled, err, tc.want)
		}
	}
	s := startServer(t, testEnv(t, "DEMO_ENABLED=false"), "api")
	s.client().call(http.MethodGet, "/demo", nil).want(t, 404, "NOT_FOUND")
	s.client().call(http.MethodGet, "/demo/demo.js", nil).want(t, 404, "NOT_FOUND")
	s.client().call(http.MethodGet, "/admin", nil).want(t, 404, "NOT_FOUND")
	if r := s.client().call(http.MethodGet, "/client/actionkit.js", nil); r.Status != 200 {
		t.Errorf("the client library without the demo: %d", r.Status)
	}
}

func TestBrowserRefreshCookieIsHttpOnly(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "cookie", browsertest.Options{})["cookie"]
	if strings.Contains(res.Str("documentCookie"), "jwt-user-refresh") || res.Data["httpOnly"] != true ||
		res.Str("sameSite") != "Strict" || res.Str("path") != "/" || res.Data["secure"] != false || res.Int("valueLength") != 64 {
		t.Errorf("cookie as the browser sees it: %v", res.Data)
	}
	if rows := sessionsOf(t, s.db(), res.Str("userId")); len(rows) != 1 || rows[0].Client != "web" {
		t.Errorf("sessions = %+v, want one web session", rows)
	}
}

func TestBrowserReloadKeepsSession(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "reload", browsertest.Options{})["reload"]
	if res.Str("source") != "refresh" || res.Int("refreshesOnReload") != 1 {
		t.Errorf("after a reload: %v; want the token from one refresh through the cookie", res.Data)
	}
	if c := countsOf(t, s.db(), res.Str("userId")); c.Rotated != 1 || c.Active != 1 {
		t.Errorf("sessions after the reload: %+v, want one rotation and one active session", c)
	}
}

func TestBrowserLogoutClearsCookie(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "logout", browsertest.Options{})["logout"]
	if res.Int("cookiesAfter") != 0 || res.Str("stateAfterReload") != "out" || !strings.Contains(res.Str("otherTab"), "another tab") {
		t.Errorf("after the logout: %v", res.Data)
	}
	if c := countsOf(t, s.db(), res.Str("userId")); c.Active != 0 {
		t.Errorf("sessions after the logout: %+v, want none active", c)
	}
}

// TestBrowserLogoutAllElsewhereEndsTheTab logs out everywhere from another
// device while the tab is logged in, three times: the order of the socket's
// disconnect and the 401 of a call in flight is left to chance, then forced
// each way (see the revoked scenario). Each time the tab must make one
// refused refresh and show the logged-out form with its reason, not an
// error banner.
func TestBrowserLogoutAllElsewhereEndsTheTab(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "revoked", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		s.client().call(http.MethodPost, "/v1/users/logoutall", nil, "Authorization", "jwt-user "+m.Str("token")).want(t, 200, "")
		return map[string]any{}
	}})
	const ended = "Your session ended (it expired, or was ended from another device or by support). Please log in again."
	for _, order := range []string{"unforced", "socket-first", "read-first"} {
		r, ok := res["revoked-"+order]
		if !ok {
			t.Errorf("%s: no result", order)
			continue
		}
		read := r.Str("read")
		if r.Int("refreshes") != 1 || r.Str("state") != "out" || r.Str("banner") != ended || r.Data["formShown"] != true ||
			(read != "ended" && (order != "unforced" || read != "ok")) {
			t.Errorf("%s: after a logout-all elsewhere: %v; want one refused refresh, the login form and %q", order, r.Data, ended)
		}
	}
}

func TestBrowserLiveFeedAcrossTabs(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "feed", browsertest.Options{})["feed"]
	if res.Str("transport") != "websocket" || res.Str("postId") == "" {
		t.Errorf("feed: %v", res.Data)
	}
	var status string
	if err := s.db().GetContext(t.Context(), &status, `SELECT status FROM posts WHERE id = $1`, res.Str("postId")); err != nil || status != "published" {
		t.Errorf("the post in the feed is %q (%v)", status, err)
	}
}

func TestBrowserRefreshRaceSingleFlight(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	var before sessionCounts
	res := runBrowser(t, s, "race", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		c := countsOf(t, db, m.Str("userId"))
		want := before
		switch m.Name {
		case "before":
			before = c
			return c
		case "after-tabs":
			want.Rotated++
		case "after-burst":
			want.Rotated += 2
		}
		if c != want {
			t.Errorf("%s: sessions %+v, want %+v (before the races: %+v)", m.Name, c, want, before)
		}
		return c
	}})
	tabs, burst := res["tabs"], res["burst"]
	if tabs.Int("requests") != 1 || burst.Int("requests") != 1 {
		t.Errorf("refresh requests: two tabs %d, ten calls in one tab %d; want 1 and 1", tabs.Int("requests"), burst.Int("requests"))
	}
	t.Logf("two tabs at once: %d refresh request, 1 rotation (tabs got their token by %v); ten at once in one tab: %d request, 1 rotation",
		tabs.Int("requests"), tabs.Data["sources"], burst.Int("requests"))
	if strings.Contains(s.logs.String(), "refresh_token_theft") {
		t.Errorf("the server detected theft")
	}
}

func TestBrowserRefreshRaceWithoutLibraryIsTheft(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	var before sessionCounts
	res := runBrowser(t, s, "race-raw", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		c := countsOf(t, db, m.Str("userId"))
		switch m.Name {
		case "before":
			before = c
		case "after":
			want := sessionCounts{Rotated: before.Rotated + 1, Active: 0, TokenVersion: before.TokenVersion + 1}
			if c != want {
				t.Errorf("after the raw race: sessions %+v, want %+v: theft detected", c, want)
			}
		}
		return c
	}})
	raw := res["raw"]
	if raw.Int("requests") != 2 || !strings.Contains(s.logs.String(), `"event":"refresh_theft"`) {
		t.Errorf("raw race: %v; want two requests and a theft detection", raw.Data)
	}
	t.Logf("without the library: %d refresh requests, statuses %v, theft detected", raw.Int("requests"), raw.Data["statuses"])
}

func TestBrowserDemoScreenshots(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	opts := browsertest.Options{Artifacts: artifactsDir(t)}
	if os.Getenv("ACTIONKIT_UPDATE_SCREENSHOT") == "1" {
		docs, err := filepath.Abs("../docs/demo.png")
		if err != nil {
			t.Fatal(err)
		}
		opts.Env = append(opts.Env, "ACTIONKIT_DOCS_SCREENSHOT="+docs)
	}
	res := runBrowser(t, s, "screenshots", opts)["screenshots"]
	for key, width := range map[string]int{"desktop": 1280, "phone": 390, "login": 390} {
		f, err := os.Open(res.Str(key))
		if err != nil {
			t.Fatalf("%s screenshot: %v", key, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != width {
			t.Errorf("%s screenshot: %v; want a PNG %d wide", key, err, width)
		}
		t.Logf("%s screenshot: %s", key, res.Str(key))
	}
}
