package framework

import (
	"bytes"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
)

func TestErrorBodyShapeAndTranslation(t *testing.T) {
	f := newTestFramework(t, Config{})
	for _, tc := range []struct {
		name, target string
		header       []string
		want         string
	}{
		{"default english", "/v1/probe?must=coded", nil, "The post was not found."},
		{"accept-language", "/v1/probe?must=coded", []string{"Accept-Language", "es-ES,es;q=0.9"}, "No se encontró la publicación."},
		{"lang argument beats accept-language", "/v1/probe?must=coded&lang=zh-tw", []string{"Accept-Language", "es"}, "找不到該貼文。"},
		{"unknown lang falls through", "/v1/probe?must=coded&lang=fr", []string{"Accept-Language", "es"}, "No se encontró la publicación."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, f, http.MethodGet, tc.target, "", "", tc.header...)
			if res.Code != 404 {
				t.Fatalf("got %d, want 404", res.Code)
			}
			keys := []string{"status", "success", "error", "message", "requestId"}
			if len(res.Body) != len(keys) {
				t.Errorf("got keys %v, want exactly %v", res.Body, keys)
			}
			if res.Body["status"] != float64(404) || res.Body["success"] != false || res.Body["error"] != "POST_NOT_FOUND" {
				t.Errorf("got %v", res.Body)
			}
			if res.Body["message"] != tc.want {
				t.Errorf("message = %q, want %q", res.Body["message"], tc.want)
			}
			if res.Body["requestId"] != res.Header.Get("X-Request-ID") || res.Header.Get("X-Request-ID") == "" {
				t.Errorf("requestId %v does not match header %q", res.Body["requestId"], res.Header.Get("X-Request-ID"))
			}
			if got := res.Header.Get("Set-Cookie"); got != "c=v" {
				t.Errorf("a coded error keeps the action's cookies: Set-Cookie = %q, want c=v", got)
			}
		})
	}
}

func TestInternalErrorsSayNothing(t *testing.T) {
	var logs bytes.Buffer
	f := newTestFramework(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Stacks: true})
	for _, must := range []string{"panic", "fail"} {
		t.Run(must, func(t *testing.T) {
			logs.Reset()
			res := do(t, f, http.MethodPost, "/v1/probe?must="+must, "", "")
			if res.Code != 500 || res.Body["error"] != "INTERNAL_SERVER_ERROR" || res.Body["success"] != false {
				t.Fatalf("got %d %s, want 500 INTERNAL_SERVER_ERROR", res.Code, res.Raw)
			}
			for _, leak := range []string{"kaboom", "hunter2", "database", "goroutine"} {
				if strings.Contains(res.Raw, leak) {
					t.Errorf("body leaks %q: %s", leak, res.Raw)
				}
			}
			id := res.Header.Get("X-Request-ID")
			if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "V1Probe") {
				t.Errorf("log lacks request id %s or action: %s", id, logs.String())
			}
			if res.Header.Get("Set-Cookie") != "" {
				t.Errorf("an internal error sets no cookie")
			}
		})
	}
}

func TestPanicLogCarriesStackOnlyWhenAsked(t *testing.T) {
	for _, stacks := range []bool{true, false} {
		var logs bytes.Buffer
		f := newTestFramework(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Stacks: stacks})
		do(t, f, http.MethodGet, "/v1/probe?must=panic", "", "")
		if got := strings.Contains(logs.String(), "goroutine "); got != stacks {
			t.Errorf("Stacks=%v: stack in log = %v", stacks, got)
		}
	}
}

func TestNotFoundAndRequestIDs(t *testing.T) {
	f := newTestFramework(t, Config{})
	for _, path := range []string{"/nope", "/v1/probe/", "/V1/PROBE", "//v1/probe"} {
		res := do(t, f, http.MethodGet, path, "", "")
		if res.Code != 404 || res.Body["error"] != "NOT_FOUND" {
			t.Errorf("%s: got %d %v, want 404 NOT_FOUND", path, res.Code, res.Body["error"])
		}
	}
	res := do(t, f, http.MethodGet, "/nope", "", "", "X-Request-ID", "abc-123_x.y:z")
	if got := res.Header.Get("X-Request-ID"); got != "abc-123_x.y:z" {
		t.Errorf("a valid incoming id is kept: got %q", got)
	}
	for _, bad := range []string{"has space", strings.Repeat("a", 129), "new\nline", "<script>"} {
		res := do(t, f, http.MethodGet, "/nope", "", "", "X-Request-ID", bad)
		got := res.Header.Get("X-Request-ID")
		if got == bad || !regexp.MustCompile(`^[0-9a-f]{16}-[0-9]+$`).MatchString(got) {
			t.Errorf("incoming %q: got id %q, want a fresh one", bad, got)
		}
	}
	a := do(t, f, http.MethodGet, "/nope", "", "").Header.Get("X-Request-ID")
	b := do(t, f, http.MethodGet, "/nope", "", "").Header.Get("X-Request-ID")
	if a == b {
		t.Errorf("two requests got the same id %q", a)
	}
}

func TestAccessRules(t *testing.T) {
	cases := []struct {
		name   string
		auth   action.Auth
		spec   func(*action.Spec)
		header string
		want   int
		who    string
	}{
		{"public ignores a token", action.Public, nil, "user-web", 200, "anonymous"},
		{"public ignores a broken authenticator", action.Public, nil, "broken", 200, "anonymous"},
		{"owner without token", action.Owner("user"), nil, "", 401, ""},
		{"owner with invalid token", action.Owner("user"), nil, "garbage", 401, ""},
		{"owner with user token", action.Owner("user"), nil, "user-web", 200, "user"},
		{"owner with admin token", action.Owner("user"), nil, "admin-web", 401, ""},
		{"admin action with user token", action.Owner("admin"), nil, "user-web", 401, ""},
		{"audience not allowed", action.Owner("user"), func(s *action.Spec) { s.Clients = []action.Client{action.App} }, "user-web", 401, ""},
		{"audience allowed", action.Owner("user"), func(s *action.Spec) { s.Clients = []action.Client{action.App} }, "user-app", 200, "user"},
		{"logged-out with no token", action.LoggedOut("user"), nil, "", 200, "anonymous"},
		{"logged-out with invalid token", action.LoggedOut("user"), nil, "garbage", 200, "anonymous"},
		{"logged-out with valid token", action.LoggedOut("user"), nil, "user-app", 401, ""},
		{"logged-out with other type", action.LoggedOut("user"), nil, "admin-web", 200, "admin"},
		{"authenticator failure", action.Owner("user"), nil, "broken", 500, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := New(Config{Authenticator: tokenAuth{}})
			spec := action.Spec{Name: "V1Whoami", Path: "/v1/whoami", Auth: tc.auth}
			if tc.spec != nil {
				tc.spec(&spec)
			}
			Register(f, actionFunc[noArgs, whoamiResult]{spec: spec, run: func(req *action.Request) (*whoamiResult, error) {
				return whoami{}.Run(nil, req, nil)
			}})
			var hdr []string
			if tc.header != "" {
				hdr = []string{"Authorization", tc.header}
			}
			res := do(t, f, http.MethodPost, "/v1/whoami", "", "", hdr...)
			if res.Code != tc.want {
				t.Fatalf("got %d, want %d: %s", res.Code, tc.want, res.Raw)
			}
			if tc.want == 401 && res.Body["error"] != "UNAUTHORIZED" {
				t.Errorf("error = %v, want UNAUTHORIZED", res.Body["error"])
			}
			if tc.who != "" && res.Body["type"] != tc.who {
				t.Errorf("type = %v, want %s", res.Body["type"], tc.who)
			}
		})
	}
}

func TestCallerLocaleWins(t *testing.T) {
	f := New(Config{Authenticator: tokenAuth{}, Catalog: newTestFramework(t, Config{}).Catalog()})
	Register(f, actionFunc[noArgs, whoamiResult]{
		spec: action.Spec{Name: "V1Fail", Path: "/v1/fail", Auth: action.Owner("user")},
		run:  func(*action.Request) (*whoamiResult, error) { return nil, errorcodesPostNotFound() },
	})
	res := do(t, f, http.MethodGet, "/v1/fail?lang=zh-TW", "", "", "Authorization", "user-web", "Accept-Language", "en")
	if res.Body["message"] != "No se encontró la publicación." {
		t.Errorf("message = %v, want the caller's locale (es)", res.Body["message"])
	}
}

func TestCORS(t *testing.T) {
	f := newTestFramework(t, Config{CORSOrigins: []string{"https://app.example"}})
	res := do(t, f, http.MethodOptions, "/v1/probe", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
	if res.Code != 204 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		res.Header.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("allowed preflight: got %d %v", res.Code, res.Header)
	}
	res = do(t, f, http.MethodOptions, "/v1/probe", "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("refused preflight carries Allow-Origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	res = do(t, f, http.MethodGet, "/v1/probe?must=x", "", "", "Origin", "https://app.example")
	if res.Code != 200 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(res.Header.Get("Vary"), "Origin") {
		t.Errorf("simple request: got %d %v", res.Code, res.Header)
	}
	closed := newTestFramework(t, Config{})
	res = do(t, closed, http.MethodGet, "/v1/probe?must=x", "", "", "Origin", "https://app.example")
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no CORS_ORIGINS means no cross-origin access")
	}
}

func TestSuccessHeaders(t *testing.T) {
	f := newTestFramework(t, Config{})
	res := do(t, f, http.MethodGet, "/v1/probe?must=x", "", "")
	for k, want := range map[string]string{"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestRedactQuery(t *testing.T) {
	logged := map[string]bool{"a": true, "b": true, "note": true}
	for in, want := range map[string]string{
		"":                            "",
		"a=1&password=secret&b=2":     "a=1&password=[REDACTED]&b=2",
		"a=1;password=secret;b=2":     "a=1;password=[REDACTED];b=2",
		"refreshToken=abc&Token=x":    "refreshToken=[REDACTED]&Token=[REDACTED]",
		"pass%77ord=sneaky&a=%41":     "pass%77ord=[REDACTED]&a=%41",
		"anything=t&note=password":    "anything=[REDACTED]&note=password",
		"A=upper-case-is-another-arg": "A=[REDACTED]",
		"%zz=bad-escape&flag&a=":      "%zz=[REDACTED]&flag&a=",
		"a=1&&b=2;":                   "a=1&&b=2;",
	} {
		if got := redactQuery(in, logged); got != want {
			t.Errorf("redactQuery(%q) = %q, want %q", in, got, want)
		}
	}
	if got := redactQuery("a=1&b=2", nil); got != "a=[REDACTED]&b=[REDACTED]" {
		t.Errorf("a request no action declared: got %q, want every value redacted", got)
	}
}

// The access log shows declared arguments and redacts those marked secret
// and any the action does not declare.
func TestAccessLogRedactsSecretArguments(t *testing.T) {
	var logs bytes.Buffer
	f := New(Config{AccessLog: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	Register(f, echoAction[secretArgs]{})
	do(t, f, http.MethodGet, "/v1/echo?name=ada;pin=4242&other=9876", "", "")
	line := logs.String()
	if !strings.Contains(line, `name=ada;pin=[REDACTED]&other=[REDACTED]`) || strings.Contains(line, "4242") || strings.Contains(line, "9876") {
		t.Errorf("access log: %s", line)
	}
}

type secretArgs struct {
	Name string `arg:"name"`
	Pin  string `arg:"pin,secret"`
}
