package framework

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
)

func TestEveryMethodReachesTheAction(t *testing.T) {
	f := newTestFramework(t, Config{})
	for _, m := range Methods {
		t.Run(m, func(t *testing.T) {
			res := do(t, f, m, "/v1/probe?must=x", "", "")
			if res.Code != http.StatusOK {
				t.Fatalf("got %d, want 200: %s", res.Code, res.Raw)
			}
			if m == http.MethodHead {
				if res.Raw != "" {
					t.Errorf("HEAD body = %q, want empty", res.Raw)
				}
				return
			}
			if res.Body["status"] != float64(200) || res.Body["success"] != true {
				t.Errorf("got %v, want status 200 and success true", res.Body)
			}
		})
	}
	res := do(t, f, "TRACE", "/v1/probe", "", "")
	if res.Code != http.StatusMethodNotAllowed || res.Body["error"] != "METHOD_NOT_ALLOWED" {
		t.Errorf("TRACE: got %d %v, want 405 METHOD_NOT_ALLOWED", res.Code, res.Body["error"])
	}
}

func TestArgumentMergeAndCoercion(t *testing.T) {
	f := newTestFramework(t, Config{})
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, target, ctype, body string
		key                       string
		want                      any
	}{
		{"query only", "/v1/probe?must=x&name=q", "", "", "Name", "q"},
		{"json only", "/v1/probe", "application/json", `{"must":"x","name":"b"}`, "Name", "b"},
		{"body wins over query", "/v1/probe?must=x&name=q", "application/json", `{"name":"b"}`, "Name", "b"},
		{"form body wins over query", "/v1/probe?must=x&name=q", form, "name=f", "Name", "f"},
		{"json without content type", "/v1/probe", "", `{"must":"x","name":"n"}`, "Name", "n"},
		{"vendor json type", "/v1/probe", "application/vnd.api+json; charset=utf-8", `{"must":"x","name":"v"}`, "Name", "v"},
		{"trim mod", "/v1/probe?must=x&name=%20%20pad%20", "", "", "Name", "pad"},
		{"trim and lower", "/v1/probe?must=x&email=%20A@B.IO", "", "", "Email", "a@b.io"},
		{"numeric string to int", "/v1/probe?must=x&count=42", "", "", "Count", float64(42)},
		{"json number to int", "/v1/probe", "application/json", `{"must":"x","count":7}`, "Count", float64(7)},
		{"numeric string in json to int", "/v1/probe", "application/json", `{"must":"x","count":"8"}`, "Count", float64(8)},
		{"float from query", "/v1/probe?must=x&ratio=0.25", "", "", "Ratio", 0.25},
		{"bool from query", "/v1/probe?must=x&flag=true", "", "", "Flag", true},
		{"bool from json", "/v1/probe", "application/json", `{"must":"x","flag":true}`, "Flag", true},
		{"bool false string", "/v1/probe?must=x&flag=false", "", "", "Flag", false},
		{"pointer bool present", "/v1/probe?must=x&opt=false", "", "", "Opt", false},
		{"pointer bool absent", "/v1/probe?must=x", "", "", "Opt", nil},
		{"default applies", "/v1/probe?must=x", "", "", "Count", float64(3)},
		{"string default applies", "/v1/probe?must=x", "", "", "Kind", "a"},
		{"empty string takes default", "/v1/probe?must=x&kind=", "", "", "Kind", "a"},
		{"json null is absent", "/v1/probe", "application/json", `{"must":"x","count":null}`, "Count", float64(3)},
		{"unknown args ignored", "/v1/probe?must=x&zzz=1", "application/json", `{"other":{"deep":[1]}}`, "Name", ""},
		{"uuid7 accepted", "/v1/probe?must=x&id=019a0000-0000-7000-8000-000000000000", "", "", "ID", "019a0000-0000-7000-8000-000000000000"},
		{"json whitespace", "/v1/probe", "application/json", " \n{\"must\":\"x\"}\n ", "Count", float64(3)},
		{"empty body", "/v1/probe?must=x", "application/json", "   ", "Count", float64(3)},
		{"escaped surrogate pair", "/v1/probe", "application/json", `{"must":"x","name":"\ud83d\ude00"}`, "Name", "😀"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, f, http.MethodPost, tc.target, tc.ctype, tc.body)
			if res.Code != http.StatusOK {
				t.Fatalf("got %d, want 200: %s", res.Code, res.Raw)
			}
			if got := res.args(t)[tc.key]; got != tc.want {
				t.Errorf("%s = %#v, want %#v", tc.key, got, tc.want)
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	f := newTestFramework(t, Config{})
	big := `{"must":"x","name":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, tc := range []struct {
		name, target, ctype, body string
		field, code               string
	}{
		{"number for string", "/v1/probe", "application/json", `{"must":"x","name":5}`, "name", "must be a string"},
		{"object for string", "/v1/probe", "application/json", `{"must":"x","name":{"a":1}}`, "name", "must be a string"},
		{"array for string", "/v1/probe", "application/json", `{"must":["x"]}`, "must", "must be a string"},
		{"bool for int", "/v1/probe", "application/json", `{"must":"x","count":true}`, "count", "must be an integer"},
		{"float for int", "/v1/probe?must=x&count=1.5", "", "", "count", "must be an integer"},
		{"word for int", "/v1/probe?must=x&count=ten", "", "", "count", "must be an integer"},
		{"int overflow", "/v1/probe?must=x&count=99999999999999999999", "", "", "count", "is out of range"},
		{"uint8 overflow", "/v1/probe?must=x&small=256", "", "", "small", "is out of range"},
		{"negative uint", "/v1/probe?must=x&small=-1", "", "", "small", "must be an integer"},
		{"NaN float", "/v1/probe?must=x&ratio=NaN", "", "", "ratio", "must be a number"},
		{"hex float", "/v1/probe?must=x&ratio=0x1p-2", "", "", "ratio", "must be a number"},
		{"1 is not a bool", "/v1/probe?must=x&flag=1", "", "", "flag", "must be true or false"},
		{"TRUE is not a bool", "/v1/probe?must=x&flag=TRUE", "", "", "flag", "must be true or false"},
		{"number for bool in json", "/v1/probe", "application/json", `{"must":"x","flag":1}`, "flag", "must be true or false"},
		{"required missing", "/v1/probe", "", "", "must", "is required"},
		{"required blank", "/v1/probe?must=", "", "", "must", "is required"},
		{"too long after trim", "/v1/probe?must=x&name=123456789", "", "", "name", "must be at most 8 characters long"},
		{"below min", "/v1/probe?must=x&count=0", "", "", "count", "must be at least 1"},
		{"above max", "/v1/probe?must=x&count=101", "", "", "count", "must be at most 100"},
		{"bad email", "/v1/probe?must=x&email=nope", "", "", "email", "must be a valid email address"},
		{"not a uuid", "/v1/probe?must=x&id=abc", "", "", "id", "must be a UUID"},
		{"uuid without dashes", "/v1/probe?must=x&id=019a0000000070008000000000000000", "", "", "id", "must be a UUID"},
		{"uuid v4 not v7", "/v1/probe?must=x&id=5b0a4a36-6a5d-4c6e-9d4e-2f4c1f0e8a11", "", "", "id", "must be a UUID version 7"},
		{"not one of", "/v1/probe?must=x&kind=c", "", "", "kind", "must be one of: a, b"},
		{"repeated query arg", "/v1/probe?must=x&name=a&name=b", "", "", "name", "must be given only once"},
		{"duplicate json key", "/v1/probe", "application/json", `{"must":"x","name":"a","name":"b"}`, "name", "must be given only once"},
		{"invalid json", "/v1/probe", "application/json", `{"must":`, "body", "must be one valid JSON object in UTF-8"},
		{"json array body", "/v1/probe", "application/json", `[{"must":"x"}]`, "body", "must be a JSON object"},
		{"json string body", "/v1/probe", "application/json", `"x"`, "body", "must be a JSON object"},
		{"trailing data", "/v1/probe", "application/json", `{"must":"x"}{"a":1}`, "body", "must be one valid JSON object in UTF-8"},
		{"trailing garbage", "/v1/probe", "application/json", `{"must":"x"} x`, "body", "must be one valid JSON object in UTF-8"},
		{"invalid utf-8 in json", "/v1/probe", "application/json", "{\"must\":\"\xff\"}", "body", "must be one valid JSON object in UTF-8"},
		{"lone surrogate", "/v1/probe", "application/json", `{"must":"\ud800"}`, "body", "must be one valid JSON object in UTF-8"},
		{"lone low surrogate", "/v1/probe", "application/json", `{"must":"\udc00x"}`, "body", "must be one valid JSON object in UTF-8"},
		{"invalid utf-8 in query", "/v1/probe?must=%ff", "", "", "must", "must be valid UTF-8"},
		{"bad query escape", "/v1/probe?must=%zz", "", "", "query", "is not a valid query string"},
		{"oversized body", "/v1/probe", "application/json", big, "body", "must be at most 1048576 bytes"},
		{"unsupported type", "/v1/probe", "text/plain", "must=x", "body", "must be application/json or application/x-www-form-urlencoded"},
		{"bad X-Client", "/v1/probe?must=x", "", "", "X-Client", "must be web or app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.field == "X-Client" {
				hdr = []string{"X-Client", "desktop"}
			}
			res := do(t, f, http.MethodPost, tc.target, tc.ctype, tc.body, hdr...)
			if res.Code != http.StatusBadRequest || res.Body["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" {
				t.Fatalf("got %d %v, want 400 BAD_REQUEST_INVALID_ARGUMENTS: %.300s", res.Code, res.Body["error"], res.Raw)
			}
			if got := res.field(t, tc.field); got != tc.code {
				t.Errorf("fields[%s] = %q, want %q (body %.300s)", tc.field, got, tc.code, res.Raw)
			}
			msg, _ := res.Body["message"].(string)
			if !strings.Contains(msg, tc.field+": ") {
				t.Errorf("message %q does not list %s", msg, tc.field)
			}
		})
	}
}

func TestClientHeaders(t *testing.T) {
	f := New(Config{})
	var got []string
	Register(f, actionFunc[noArgs, whoamiResult]{
		spec: specFor("V1Hdr", "/v1/hdr"),
		run: func(req *action.Request) (*whoamiResult, error) {
			got = []string{string(req.Client), req.Platform}
			return &whoamiResult{}, nil
		},
	})
	for _, tc := range []struct {
		name, client, platform string
		wantCode               int
		want                   []string
	}{
		{"defaults", "", "", 200, []string{"web", "web"}},
		{"trimmed and lowercased", " APP ", " iOS ", 200, []string{"app", "ios"}},
		{"any platform token", "web", "smart_tv-2", 200, []string{"web", "smart_tv-2"}},
		{"bad client", "tablet", "", 400, nil},
		{"bad platform char", "", "ios 17", 400, nil},
		{"platform too long", "", strings.Repeat("a", 33), 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			res := do(t, f, http.MethodGet, "/v1/hdr", "", "", "X-Client", tc.client, "X-Platform", tc.platform)
			if res.Code != tc.wantCode {
				t.Fatalf("got %d, want %d: %s", res.Code, tc.wantCode, res.Raw)
			}
			if tc.want != nil && (len(got) != 2 || got[0] != tc.want[0] || got[1] != tc.want[1]) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

type lenientArgs struct {
	Token string `arg:"token,lenient" validate:"pattern=^[0-9a-f]{4}$"`
	Other string `arg:"other"`
}

func TestLenientArguments(t *testing.T) {
	f := New(Config{})
	Register(f, echoAction[lenientArgs]{})
	for _, tc := range []struct {
		name, ctype, body string
		want              string
	}{
		{"usable value kept", "application/json", `{"token":"ab12"}`, "ab12"},
		{"number counts as absent", "application/json", `{"token":1234}`, ""},
		{"object counts as absent", "application/json", `{"token":{"a":1}}`, ""},
		{"rule failure counts as absent", "application/json", `{"token":"zzzz"}`, ""},
		{"repeated counts as absent", "application/x-www-form-urlencoded", `token=ab12&token=cd34`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, f, http.MethodPost, "/v1/echo", tc.ctype, tc.body)
			if res.Code != 200 || res.Body["Token"] != tc.want {
				t.Errorf("got %d %s, want 200 with Token %q", res.Code, res.Raw, tc.want)
			}
		})
	}
	if res := do(t, f, http.MethodPost, "/v1/echo", "application/json", `{"token":"ab12","other":5}`); res.Code != 400 {
		t.Errorf("a strict argument beside a lenient one is still refused: got %d", res.Code)
	}
}

// A body is read whole up to MaxBodyBytes and refused beyond it, whether
// its length is declared (Content-Length) or not (chunked), over a real
// HTTP connection; a body shorter than its declared length is a 400, not
// a 500.
func TestBodyLengths(t *testing.T) {
	const max = 64
	f := newTestFramework(t, Config{MaxBodyBytes: max})
	srv := httptest.NewServer(f)
	defer srv.Close()
	body := func(n int) string { // {"must":"xxx…"} of exactly n bytes
		return `{"must":"` + strings.Repeat("x", n-len(`{"must":""}`)) + `"}`
	}
	for _, tc := range []struct {
		name    string
		body    string
		chunked bool
		want    int
	}{
		{"declared, at the limit", body(max), false, http.StatusOK},
		{"declared, one byte over", body(max + 1), false, http.StatusBadRequest},
		{"chunked, at the limit", body(max), true, http.StatusOK},
		{"chunked, one byte over", body(max + 1), true, http.StatusBadRequest},
	} {
		var rd io.Reader = strings.NewReader(tc.body)
		if tc.chunked {
			rd = io.MultiReader(rd) // hides the length: sent chunked
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/probe", rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, res.StatusCode, raw, tc.want)
		}
		if tc.want == http.StatusOK && !strings.Contains(string(raw), strings.Repeat("x", max-len(`{"must":""}`))) {
			t.Errorf("%s: the argument did not arrive whole: %s", tc.name, raw)
		}
	}
	// A body declared longer than the presized buffer is read as it comes.
	big := newTestFramework(t, Config{MaxBodyBytes: 4 * presizedBody})
	res := do(t, big, http.MethodPost, "/v1/probe", "application/json", body(presizedBody+100))
	if res.Code != http.StatusOK {
		t.Errorf("declared body over the presized buffer: %d %s", res.Code, res.Raw)
	}
	r := httptest.NewRequest(http.MethodPost, "/v1/probe", strings.NewReader(`{"must":"x"}`))
	r.ContentLength = 40 // more than the body holds
	w := httptest.NewRecorder()
	f.ServeHTTP(w, r)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "BAD_REQUEST_INVALID_ARGUMENTS") {
		t.Errorf("short body: %d %s", w.Code, w.Body)
	}
}

// The JSON answer's header values are shared by every answer: a handler
// or middleware that adds to one of them changes its own answer only.
func TestJSONHeaderValuesStayShared(t *testing.T) {
	first := http.Header{}
	setJSONHeaders(first)
	first.Add("Cache-Control", "private")
	first.Add("Content-Type", "text/plain")
	second := http.Header{}
	setJSONHeaders(second)
	if got := second.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
		t.Errorf("Cache-Control of the next answer: %q", got)
	}
	if got := second.Values("Content-Type"); len(got) != 1 || got[0] != "application/json; charset=utf-8" {
		t.Errorf("Content-Type of the next answer: %q", got)
	}
	if got := first.Values("Cache-Control"); len(got) != 2 {
		t.Errorf("Cache-Control of the first answer: %q", got)
	}
}
