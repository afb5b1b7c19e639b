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
}

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
	})
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
