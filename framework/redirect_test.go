package framework

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/actionkit/actionkit/action"
)

// landing is a test action whose success is a redirect.
type landing struct{ status int }

type landingArgs struct {
	To string `arg:"to"`
}

type landingResult struct{ to string }

func (r *landingResult) Location() string { return r.to }

func (a landing) Spec() action.Spec {
	return action.Spec{Name: "V1Landing", Path: "/v1/landing", Summary: "Land", Auth: action.Public, Status: a.status}
}

func (landing) Run(_ context.Context, req *action.Request, in *landingArgs) (*landingResult, error) {
	if in.To == "" {
		return nil, testPostNotFound.New()
	}
	req.SetCookie(&http.Cookie{Name: "c", Value: "v"})
	return &landingResult{to: in.To}, nil
}

// plain is a 2xx result declared with a redirect status.
type plainWithRedirect struct{}

func (plainWithRedirect) Spec() action.Spec {
	return action.Spec{Name: "V1Plain", Path: "/v1/plain", Auth: action.Public, Status: http.StatusFound}
}

func (plainWithRedirect) Run(context.Context, *action.Request, *noArgs) (*whoamiResult, error) {
	return &whoamiResult{}, nil
}

// TestRedirectResult: a result implementing action.Redirect under a
// redirect status is answered with its Location, the action's cookies
// and no body; its errors stay JSON; and a redirect status is refused at
// registration for any other result, as a 2xx status is for a redirect.
func TestRedirectResult(t *testing.T) {
	f := New(Config{})
	Register(f, landing{status: http.StatusFound})
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/landing?to=https://app.test/%23x", nil))
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "https://app.test/#x" || rec.Body.Len() != 0 {
		t.Errorf("got %d, Location %q, body %q", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	if rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Referrer-Policy") != "no-referrer" ||
		rec.Header().Get("Set-Cookie") != "c=v" {
		t.Errorf("headers: %v", rec.Header())
	}
	rec = httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/landing", nil))
	if rec.Code != 404 || rec.Header().Get("Location") != "" || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("an error: got %d, Location %q, Content-Type %q", rec.Code, rec.Header().Get("Location"), rec.Header().Get("Content-Type"))
	}
	for name, register := range map[string]func(){
		"a redirect result under 200": func() { Register(New(Config{}), landing{}) },
		"a JSON result under 302":     func() { Register(New(Config{}), plainWithRedirect{}) },
		"a redirect result under 304": func() { Register(New(Config{}), landing{status: http.StatusNotModified}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered, want a panic", name)
				}
			}()
			register()
		}()
	}
}
