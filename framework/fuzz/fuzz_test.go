package fuzz_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/framework"
)

// fuzzArgs covers every argument kind.
type fuzzArgs struct {
	S   string     `arg:"s" mod:"trim,lower" validate:"max=16"`
	E   string     `arg:"e" validate:"email"`
	N   int        `arg:"n" default:"5" validate:"min=0,max=10"`
	U   uint16     `arg:"u"`
	F   *float32   `arg:"f"`
	B   bool       `arg:"b"`
	K   string     `arg:"k" validate:"oneof=x|y"`
	P   string     `arg:"p" validate:"pattern=^[a-z]+$"`
	ID  *uuid.UUID `arg:"id" validate:"uuid7"`
	Req string     `arg:"req" validate:"required"`
	Raw string     `arg:"raw,allownul"`
}

// refusedNUL lists the string arguments of fuzzArgs that refuse a NUL
// character; "raw" lets one through.
var refusedNUL = []string{"s", "e", "k", "p", "req"}

// echo answers its arguments.
type echo struct{}

func (echo) Spec() action.Spec {
	return action.Spec{Name: "V1Echo", Path: "/v1/echo", Auth: action.Public}
}

func (echo) Run(_ context.Context, _ *action.Request, in *fuzzArgs) (*fuzzArgs, error) {
	return in, nil
}

func newFramework() *framework.Framework {
	fw := framework.New(framework.Config{})
	framework.Register(fw, echo{})
	return fw
}

// FuzzPipeline drives random query strings, bodies and content types
// through the argument pipeline: every answer must be a JSON body with a
// status below 500.
func FuzzPipeline(f *testing.F) {
	fw := newFramework()
	for _, seed := range []struct{ q, ctype, body string }{
		{"req=x", "", ""},
		{"req=x&n=3&b=true&u=9", "application/json", `{"s":" ABC ","f":1.5}`},
		{"req=a&req=b", "application/x-www-form-urlencoded", "n=1&k=y"},
		{"n=%zz", "application/json", `{"req":"x","id":"019a0000-0000-7000-8000-000000000000"}`},
		{"", "application/json", `[1,2,3]`},
		{"", "application/json", `{"req":"\ud800"}`},
		{"", "text/plain", "hello"},
		{"f=NaN&u=-1", "application/json", `{"req":"x","n":1e400}`},
		{"", "application/json", `{"req":"x"}trailing`},
		{"p=ABC&e=not-an-email", "", `{"req":"x","b":"TRUE"}`},
		{"req=%00", "", ""},
		{"req=x&raw=%00", "application/json", `{"s":"a\u0000","k":"\u0000y"}`},
		{"req=x", "application/x-www-form-urlencoded", "p=%00&raw=%00"},
	} {
		f.Add(seed.q, seed.ctype, seed.body)
	}
	f.Fuzz(func(t *testing.T, query, ctype, body string) {
		r := httptest.NewRequest(http.MethodPost, "/v1/echo", strings.NewReader(body))
		r.URL.RawQuery = query
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		w := httptest.NewRecorder()
		fw.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("query %q ctype %q body %q: got %d %s", query, ctype, body, w.Code, w.Body.String())
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("query %q body %q: answer is not JSON: %q", query, body, w.Body.String())
		}
		if out["status"] != float64(w.Code) {
			t.Fatalf("status field %v differs from HTTP %d", out["status"], w.Code)
		}
		if w.Code == 200 && (out["Req"] == nil || out["Req"] == "") {
			t.Fatalf("a success without the required argument: %v", out)
		}
		checkNUL(t, w.Code, out, withNUL(query, ctype, body))
	})
}

// checkNUL is the oracle for NUL characters: a request whose arguments
// give a refusing string argument a NUL is a 400, never a success nor a
// 500; once the pipeline got as far as the arguments themselves, that 400
// names each such argument. A success never carries a NUL but in "raw".
func checkNUL(t *testing.T, code int, out map[string]any, nul []string) {
	t.Helper()
	if code == 200 {
		for k, v := range out {
			if s, ok := v.(string); ok && k != "Raw" && strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("a success echoes a NUL in %s: %v", k, out)
			}
		}
	}
	if len(nul) == 0 {
		return
	}
	if code != 400 {
		t.Fatalf("arguments %v hold a NUL: got %d %v, want 400", nul, code, out)
	}
	fields, _ := out["fields"].(map[string]any)
	for name, why := range fields {
		if name == "query" || name == "body" || why == "must be valid UTF-8" || why == "must be given only once" {
			return // refused before the arguments were read one by one
		}
	}
	for _, name := range nul {
		if fields[name] != "must not contain a NUL character" {
			t.Fatalf("argument %s holds a NUL: fields %v do not name it", name, fields)
		}
	}
}

// withNUL lists the refusing string arguments whose value, once query and
// body are merged as the pipeline merges them (the body wins), is a
// string holding a NUL. It returns nil when it cannot tell.
func withNUL(query, ctype, body string) []string {
	vals := map[string]any{}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil
	}
	for k, vs := range q {
		vals[k] = vs[len(vs)-1]
	}
	if strings.TrimSpace(body) != "" {
		mt, _, _ := strings.Cut(ctype, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		switch {
		case mt == "" || mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
			var obj map[string]any
			if json.Unmarshal([]byte(body), &obj) != nil {
				return nil
			}
			for k, v := range obj {
				vals[k] = v
			}
		case mt == "application/x-www-form-urlencoded":
			form, err := url.ParseQuery(body)
			if err != nil {
				return nil
			}
			for k, vs := range form {
				vals[k] = vs[len(vs)-1]
			}
		default:
			return nil
		}
	}
	var out []string
	for _, name := range refusedNUL {
		if s, ok := vals[name].(string); ok && strings.IndexByte(s, 0) >= 0 {
			out = append(out, name)
		}
	}
	return out
}

// The seeds also run as a plain test, so a short -fuzz run is not the only
// guard; this one checks a coerced value end to end.
func TestFuzzSeedsNeverFailInternally(t *testing.T) {
	fw := newFramework()
	q := url.Values{"req": {"x"}, "f": {"3.25"}}
	w := httptest.NewRecorder()
	fw.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/echo?"+q.Encode(), nil))
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("answer is not JSON: %q", w.Body.String())
	}
	if w.Code != 200 || out["F"] != 3.25 {
		t.Errorf("got %d %s", w.Code, w.Body.String())
	}
}
