// Package actiontest runs registered actions through the framework's whole
// pipeline (routing, merged query and body arguments, coercion,
// validation, the access rule, error codes and the flat JSON body) in a
// unit test, without a network listener, a database or a token: the caller
// is whatever the test says it is.
//
//	api := actiontest.New(t, framework.Config{})
//	framework.Register(api.Framework, &Greet{})
//	res := api.Call("GET", "/v1/greet", actiontest.Args{"name": "Ada"})
//	res.WantOK(t)
//
// A test that calls as an authenticated owner uses As:
//
//	res := api.As(&action.Caller{Type: "user", ID: id, Client: action.Web}).
//		Call("POST", "/v1/users/read", nil)
package actiontest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/framework"
)

// header is the Authorization value that makes the fake authenticator
// answer the API's caller.
const header = "actiontest caller"

// T is the part of T that the package uses, so that an Example
// can run it too.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// API is a framework under test. Register actions on Framework.
type API struct {
	t         T
	Framework *framework.Framework
	caller    *action.Caller
	headers   http.Header
}

// New returns an API over a framework built from cfg, whose Authenticator
// is replaced by one that answers the caller given with As.
func New(t T, cfg framework.Config) *API {
	t.Helper()
	api := &API{t: t, headers: http.Header{}}
	cfg.Authenticator = fakeAuth{}
	api.Framework = framework.New(cfg)
	return api
}

// fakeAuth answers the caller of the API that made the request.
type fakeAuth struct{}

type callerKey struct{}

func (fakeAuth) Authenticate(ctx context.Context, r *http.Request, _ action.Needs) (*action.Caller, error) {
	if r.Header.Get("Authorization") != header {
		return nil, nil
	}
	c, _ := r.Context().Value(callerKey{}).(*action.Caller)
	if c == nil {
		return nil, nil
	}
	cp := *c
	return &cp, nil
}

// As returns a view of the API whose calls are made by caller (nil:
// anonymous), with an Authorization header so that the framework asks the
// authenticator.
func (a *API) As(caller *action.Caller) *API {
	cp := *a
	cp.caller = caller
	cp.headers = a.headers.Clone()
	return &cp
}

// With returns a view of the API whose calls carry header name: value
// (X-Client, Cookie, Origin, ...).
func (a *API) With(name, value string) *API {
	cp := *a
	cp.headers = a.headers.Clone()
	cp.headers.Add(name, value)
	return &cp
}

// Args are the arguments of a call: sent as a JSON body, or as the query
// string of a GET.
type Args map[string]any

// Call runs one request through the framework and returns its answer.
func (a *API) Call(method, path string, args Args) *Response {
	a.t.Helper()
	var body *bytes.Reader
	target := path
	if method == http.MethodGet || method == http.MethodHead {
		q := url.Values{}
		for k, v := range args {
			b, err := json.Marshal(v)
			if s, ok := v.(string); ok {
				q.Set(k, s)
			} else if err == nil {
				q.Set(k, string(b))
			}
		}
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		body = bytes.NewReader(nil)
	} else {
		b, err := json.Marshal(args)
		if err != nil {
			a.t.Fatalf("actiontest: arguments: %v", err)
		}
		if args == nil {
			b = nil
		}
		body = bytes.NewReader(b)
	}
	r := httptest.NewRequest(method, target, body)
	if body.Len() > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range a.headers {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if a.caller != nil {
		r.Header.Set("Authorization", header)
		r = r.WithContext(context.WithValue(r.Context(), callerKey{}, a.caller))
	}
	w := httptest.NewRecorder()
	a.Framework.ServeHTTP(w, r)
	return newResponse(a.t, w)
}

// Response is the answer to a call.
type Response struct {
	Status int
	Header http.Header
	// Body is the decoded JSON object of the answer (nil for a HEAD).
	Body map[string]any
	// Raw is the body as it was written.
	Raw []byte
	// Cookies are the cookies the answer sets.
	Cookies []*http.Cookie
}

func newResponse(t T, w *httptest.ResponseRecorder) *Response {
	t.Helper()
	res := &Response{Status: w.Code, Header: w.Header(), Raw: w.Body.Bytes(), Cookies: w.Result().Cookies()}
	if len(res.Raw) > 0 {
		if err := json.Unmarshal(res.Raw, &res.Body); err != nil {
			t.Fatalf("actiontest: the answer is not a JSON object: %v: %s", err, res.Raw)
		}
	}
	return res
}

// Code is the error code of the answer, or "" for a success.
func (r *Response) Code() string {
	s, _ := r.Body["error"].(string)
	return s
}

// String is a key of the body as a string ("" if absent or not a string).
func (r *Response) String(key string) string {
	s, _ := r.Body[key].(string)
	return s
}

// Cookie returns the cookie the answer sets under name, or nil.
func (r *Response) Cookie(name string) *http.Cookie {
	for _, c := range r.Cookies {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// WantOK fails the test unless the answer is a success.
func (r *Response) WantOK(t T) *Response {
	t.Helper()
	if r.Status >= 300 || r.Body["success"] != true {
		t.Fatalf("want a success, got %d %s", r.Status, r.Raw)
	}
	return r
}

// WantError fails the test unless the answer is the error code with the
// HTTP status status.
func (r *Response) WantError(t T, status int, code string) *Response {
	t.Helper()
	if r.Status != status || r.Code() != code || r.Body["success"] != false {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, r.Raw)
	}
	return r
}
