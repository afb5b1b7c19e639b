package framework

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
)

func TestClientIPWalksForwardedFor(t *testing.T) {
	t.Parallel()
	f := New(Config{TrustProxy: true})
	custom := New(Config{TrustProxy: true, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	off := New(Config{})
	cases := []struct {
		name string
		f    *Framework
		peer string
		xff  []string
		want string
	}{
		{"no header", f, "127.0.0.1:1", nil, "127.0.0.1"},
		{"one hop", f, "127.0.0.1:1", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed left hops", f, "127.0.0.1:1", []string{"1.1.1.1, 2.2.2.2, 198.51.100.7"}, "198.51.100.7"},
		{"trusted hops skipped", f, "10.0.0.2:1", []string{"6.6.6.6, 198.51.100.7, 192.168.1.1, 10.0.0.1"}, "198.51.100.7"},
		{"several header lines", f, "127.0.0.1:1", []string{"6.6.6.6, 198.51.100.7", "10.0.0.1"}, "198.51.100.7"},
		{"all trusted: left-most", f, "127.0.0.1:1", []string{"10.1.1.1, 192.168.0.9"}, "10.1.1.1"},
		{"untrusted peer: header ignored", f, "198.51.100.9:1", []string{"10.1.1.1"}, "198.51.100.9"},
		{"not trusted without TrustProxy", off, "127.0.0.1:1", []string{"198.51.100.7"}, "127.0.0.1"},
		{"garbage ends at its sender", f, "127.0.0.1:1", []string{"198.51.100.7, nonsense, 10.0.0.5"}, "10.0.0.5"},
		{"ports and mapped addresses", f, "[::1]:1", []string{"[2001:db8::1]:443, ::ffff:10.0.0.1"}, "2001:db8::1"},
		{"custom list", custom, "203.0.113.5:1", []string{"198.51.100.7, 203.0.113.4"}, "198.51.100.7"},
		{"custom list: loopback not trusted", custom, "127.0.0.1:1", []string{"198.51.100.7"}, "127.0.0.1"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := c.f.clientIP(r); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

// sameSiteProbe sets a cookie, like a login.
type sameSiteProbe struct{}

func (sameSiteProbe) Spec() action.Spec {
	return action.Spec{Name: "V1Cookie", Path: "/v1/cookie", Auth: action.Public, SameSite: true}
}

func (sameSiteProbe) Run(_ context.Context, req *action.Request, _ *noArgs) (*noArgs, error) {
	req.SetCookie(&http.Cookie{Name: "session", Value: "v"})
	return &noArgs{}, nil
}

func TestSameSiteActionsRefuseCrossSite(t *testing.T) {
	t.Parallel()
	f := New(Config{CORSOrigins: []string{"https://app.example.com"}, SameSiteOrigins: []string{"https://api.example.com"}, TrustProxy: true})
	Register(f, sameSiteProbe{})
	Register(f, probe{})
	cases := []struct {
		name    string
		path    string
		headers map[string]string
		tls     bool
		want    int
	}{
		{"no headers (app or curl)", "/v1/cookie", nil, false, 200},
		{"same origin", "/v1/cookie", map[string]string{"Origin": "http://example.test"}, false, 200},
		{"same origin over TLS", "/v1/cookie", map[string]string{"Origin": "https://example.test"}, true, 200},
		{"scheme differs", "/v1/cookie", map[string]string{"Origin": "https://example.test"}, false, 403},
		{"proxy says https", "/v1/cookie", map[string]string{"Origin": "https://example.test", "X-Forwarded-Proto": "https"}, false, 200},
		{"public URL", "/v1/cookie", map[string]string{"Origin": "https://api.example.com"}, false, 200},
		{"CORS origin", "/v1/cookie", map[string]string{"Origin": "https://app.example.com"}, false, 200},
		{"foreign origin", "/v1/cookie", map[string]string{"Origin": "https://evil.example"}, false, 403},
		{"null origin", "/v1/cookie", map[string]string{"Origin": "null"}, false, 403},
		{"same-site fetch", "/v1/cookie", map[string]string{"Sec-Fetch-Site": "same-site"}, false, 200},
		{"cross-site fetch", "/v1/cookie", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://example.test"}, false, 403},
		{"other actions unaffected", "/v1/probe?must=x", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, false, 200},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodPost, "http://example.test"+c.path, nil)
		r.RemoteAddr = "127.0.0.1:5"
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s: status %d, want %d: %s", c.name, w.Code, c.want, w.Body)
			continue
		}
		if c.want == 403 {
			if w.Header().Get("Set-Cookie") != "" {
				t.Errorf("%s: a refused request set a cookie", c.name)
			}
			if body := w.Body.String(); !strings.Contains(body, `"error":"FORBIDDEN"`) {
				t.Errorf("%s: body %s", c.name, body)
			}
		}
	}
}

// TestSameSiteActionsRefuseNavigations: a GET or HEAD (what a top-level
// navigation sends, without Origin) of a SameSite action passes only when
// Sec-Fetch-Site is absent, same-origin or none; POST allows same-site.
func TestSameSiteActionsRefuseNavigations(t *testing.T) {
	t.Parallel()
	f := New(Config{})
	Register(f, sameSiteProbe{})
	Register(f, probe{})
	for _, c := range []struct {
		method, path, site string
		want               int
	}{
		{http.MethodGet, "/v1/cookie", "", 200},
		{http.MethodGet, "/v1/cookie", "same-origin", 200},
		{http.MethodGet, "/v1/cookie", "None", 200},
		{http.MethodHead, "/v1/cookie", "none", 200},
		{http.MethodGet, "/v1/cookie", "same-site", 403},
		{http.MethodHead, "/v1/cookie", "same-site", 403},
		{http.MethodGet, "/v1/cookie", "cross-site", 403},
		{http.MethodGet, "/v1/cookie", "something-new", 403},
		{http.MethodPost, "/v1/cookie", "same-site", 200},
		{http.MethodPut, "/v1/cookie", "same-site", 200},
		{http.MethodGet, "/v1/probe?must=x", "same-site", 200},
	} {
		r := httptest.NewRequest(c.method, "http://example.test"+c.path, nil)
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, r)
		if w.Code != c.want || (c.want == 403 && w.Header().Get("Set-Cookie") != "") {
			t.Errorf("%s %s with Sec-Fetch-Site %q: status %d (Set-Cookie %q), want %d",
				c.method, c.path, c.site, w.Code, w.Header().Get("Set-Cookie"), c.want)
		}
	}
}
