package webclient_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/webclient"
)

func all() []*webclient.Asset {
	return append(append(webclient.Library(), webclient.Demo()...), webclient.Admin()...)
}

func TestAssetsAreServedWithTheirHeaders(t *testing.T) {
	etags := map[string]string{}
	for _, a := range all() {
		if prev, ok := etags[a.ETag]; ok {
			t.Errorf("%s and %s share the ETag %s", prev, a.Path, a.ETag)
		}
		etags[a.ETag] = a.Path
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, a.Path, nil))
		h := rec.Header()
		if rec.Code != 200 || h.Get("Content-Type") != a.ContentType || h.Get("ETag") != a.ETag ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != webclient.ContentSecurityPolicy ||
			!bytes.Equal(rec.Body.Bytes(), a.Body()) {
			t.Errorf("GET %s: %d %v", a.Path, rec.Code, h)
		}
		rec = httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, a.Path, nil)
		req.Header.Set("If-None-Match", a.ETag)
		a.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("GET %s with a matching If-None-Match: %d, %d bytes", a.Path, rec.Code, rec.Body.Len())
		}
		rec = httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, a.Path, nil))
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != fmt.Sprint(len(a.Body())) {
			t.Errorf("HEAD %s: %d, %d bytes, length %q", a.Path, rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
		}
	}
}

// TestInteractionPageHeaders: the demo page, which is the OAuth
// interaction page by default, is never framed and never sends its address
// (which carries the request id) as a Referer (CONTRACT §19).
func TestInteractionPageHeaders(t *testing.T) {
	for _, a := range webclient.Demo() {
		if a.Path != "/demo" {
			continue
		}
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/demo?oauth_request="+strings.Repeat("ab", 32), nil))
		h := rec.Header()
		if h.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("/demo headers %v", h)
		}
		return
	}
	t.Fatal("no /demo asset")
}

func TestPaths(t *testing.T) {
	want := map[string]string{
		"/client/actionkit.js":                 "text/javascript; charset=utf-8",
		"/client/session.js":                   "text/javascript; charset=utf-8",
		"/client/live.js":                      "text/javascript; charset=utf-8",
		"/client/errors.js":                    "text/javascript; charset=utf-8",
		"/client/mfa.js":                       "text/javascript; charset=utf-8",
		"/client/passkeys.js":                  "text/javascript; charset=utf-8",
		"/client/oidc.js":                      "text/javascript; charset=utf-8",
		"/client/socket.io.esm.min.js":         "text/javascript; charset=utf-8",
		"/client/socket.io-client.LICENSE.txt": "text/plain; charset=utf-8",
		"/demo":                                "text/html; charset=utf-8",
		"/demo/demo.css":                       "text/css; charset=utf-8",
		"/demo/demo.js":                        "text/javascript; charset=utf-8",
		"/demo/account.js":                     "text/javascript; charset=utf-8",
		"/demo/view.js":                        "text/javascript; charset=utf-8",
		"/demo/secondstep.js":                  "text/javascript; charset=utf-8",
		"/demo/twofactor.js":                   "text/javascript; charset=utf-8",
		"/demo/reauth.js":                      "text/javascript; charset=utf-8",
		"/demo/signin.js":                      "text/javascript; charset=utf-8",
		"/demo/passkeypanel.js":                "text/javascript; charset=utf-8",
		"/demo/identities.js":                  "text/javascript; charset=utf-8",
		"/demo/load.js":                        "text/javascript; charset=utf-8",
		"/demo/activity.js":                    "text/javascript; charset=utf-8",
		"/demo/profile.js":                     "text/javascript; charset=utf-8",
		"/demo/consent.js":                     "text/javascript; charset=utf-8",
		"/demo/consent.css":                    "text/css; charset=utf-8",
		"/demo/apps.js":                        "text/javascript; charset=utf-8",
		"/admin":                               "text/html; charset=utf-8",
		"/admin/admin.css":                     "text/css; charset=utf-8",
		"/admin/admin.js":                      "text/javascript; charset=utf-8",
		"/admin/webhooks.js":                   "text/javascript; charset=utf-8",
	}
	got := map[string]string{}
	for _, a := range all() {
		got[a.Path] = a.ContentType
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("assets:\n got %v\nwant %v", got, want)
	}
}

var (
	imports = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"`)
	links   = regexp.MustCompile(`\b(?:src|href)="([^"]+)"`)
)

// TestReferencesResolve checks that every module import and every link of
// the page names an embedded asset, so the browser never fetches a 404.
func TestReferencesResolve(t *testing.T) {
	served := map[string]bool{}
	for _, a := range all() {
		served[a.Path] = true
	}
	for _, a := range all() {
		var refs [][]string
		switch {
		case strings.HasSuffix(a.Path, ".min.js"):
			continue // vendored
		case strings.HasSuffix(a.Path, ".js"):
			refs = imports.FindAllStringSubmatch(string(a.Body()), -1)
		case a.Path == "/demo" || a.Path == "/admin":
			refs = links.FindAllStringSubmatch(string(a.Body()), -1)
		}
		for _, m := range refs {
			ref := m[1]
			if strings.HasPrefix(ref, "data:") || strings.HasPrefix(ref, "#") {
				continue // inline, or a place in the page itself
			}
			if !strings.HasPrefix(ref, "/") {
				ref = path.Join(path.Dir(a.Path), ref)
			}
			if !served[ref] {
				t.Errorf("%s refers to %s, which is not served", a.Path, m[1])
			}
		}
	}
}

// TestFilesStaySmall keeps the hand-written assets under the house limit
// of about 400 lines.
func TestFilesStaySmall(t *testing.T) {
	for _, a := range all() {
		if strings.HasSuffix(a.Path, ".min.js") {
			continue
		}
		if n := bytes.Count(a.Body(), []byte("\n")); n > 400 {
			t.Errorf("%s has %d lines", a.Path, n)
		}
	}
}

// Serve the client library and the demo page with net/http alone.
func Example() {
	mux := http.NewServeMux()
	for _, a := range append(webclient.Library(), webclient.Demo()...) {
		mux.Handle("GET "+a.Path, a) // a GET pattern also matches HEAD
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/client/actionkit.js", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("X-Content-Type-Options"))
	// Output: 200 text/javascript; charset=utf-8 nosniff
}
