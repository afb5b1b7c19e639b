package framework

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/invopop/validation"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// probe is a test action that echoes its decoded arguments.
type probe struct{}

type probeArgs struct {
	Name    string     `arg:"name" mod:"trim" validate:"max=8"`
	Count   int        `arg:"count" default:"3" validate:"min=1,max=100"`
	Ratio   float64    `arg:"ratio"`
	Flag    bool       `arg:"flag"`
	Opt     *bool      `arg:"opt"`
	Email   string     `arg:"email" mod:"trim,lower" validate:"email"`
	ID      *uuid.UUID `arg:"id" validate:"uuid7"`
	Kind    string     `arg:"kind" default:"a" validate:"oneof=a|b"`
	Must    string     `arg:"must" validate:"required"`
	Small   uint8      `arg:"small"`
	Ignored string     `arg:"-"`
}

type probeResult struct {
	Args  probeArgs `json:"args"`
	Owner string    `json:"owner,omitempty"`
}

func (probe) Spec() action.Spec {
	return action.Spec{Name: "V1Probe", Path: "/v1/probe", Auth: action.Public}
}

func (probe) Run(_ context.Context, req *action.Request, in *probeArgs) (*probeResult, error) {
	switch in.Must {
	case "panic":
		panic("kaboom")
	case "fail":
		return nil, errors.New("database password=hunter2 leaked")
	case "coded":
		req.SetCookie(&http.Cookie{Name: "c", Value: "v"})
		return nil, testPostNotFound.New()
	}
	return &probeResult{Args: *in}, nil
}

// whoami is a test action for the access rules.
type whoami struct{ auth action.Auth }

type noArgs struct{}

type whoamiResult struct {
	Type string `json:"type"`
}

func (a whoami) Spec() action.Spec {
	return action.Spec{Name: "V1Whoami", Path: "/v1/whoami", Auth: a.auth, Clients: nil}
}

func (whoami) Run(_ context.Context, req *action.Request, _ *noArgs) (*whoamiResult, error) {
	if req.Caller == nil {
		return &whoamiResult{Type: "anonymous"}, nil
	}
	return &whoamiResult{Type: string(req.Caller.Type)}, nil
}

// tokenAuth is a fake Authenticator: "Bearer-ish" header values name the
// caller directly. The real one is tested in package auth.
type tokenAuth struct{}

func (tokenAuth) Authenticate(_ context.Context, r *http.Request, _ action.Needs) (*action.Caller, error) {
	switch r.Header.Get("Authorization") {
	case "user-web":
		return &action.Caller{Type: "user", Client: action.Web, Locale: "es"}, nil
	case "user-app":
		return &action.Caller{Type: "user", Client: action.App}, nil
	case "admin-web":
		return &action.Caller{Type: "admin", Client: action.Web}, nil
	case "broken":
		return nil, errors.New("database down")
	}
	return nil, nil
}

func newTestFramework(t testing.TB, cfg Config) *Framework {
	t.Helper()
	if cfg.Catalog == nil {
		c, err := errorcodes.NewCatalog([]string{"en", "es", "zh-TW"},
			append(errorcodes.Framework(), testPostNotFound, testUserExists), testMessages)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Catalog = c
	}
	f := New(cfg)
	Register(f, probe{})
	return f
}

type response struct {
	Code   int
	Header http.Header
	Body   map[string]any
	Raw    string
}

func do(t testing.TB, h http.Handler, method, target, contentType, body string, header ...string) response {
	t.Helper()
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := response{Code: w.Code, Header: w.Header(), Raw: w.Body.String()}
	if method != http.MethodHead && w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &res.Body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", method, target, w.Body.String())
		}
	}
	return res
}

func (r response) args(t testing.TB) map[string]any {
	t.Helper()
	a, ok := r.Body["args"].(map[string]any)
	if !ok {
		t.Fatalf("no args in %s", r.Raw)
	}
	return a
}

func (r response) field(t testing.TB, name string) string {
	t.Helper()
	fields, _ := r.Body["fields"].(map[string]any)
	s, _ := fields[name].(string)
	return s
}

// actionFunc declares a test action inline.
type actionFunc[I, O any] struct {
	spec action.Spec
	run  func(req *action.Request) (*O, error)
}

func (a actionFunc[I, O]) Spec() action.Spec { return a.spec }

func (a actionFunc[I, O]) Run(_ context.Context, req *action.Request, _ *I) (*O, error) {
	return a.run(req)
}

func specFor(name, path string) action.Spec {
	return action.Spec{Name: name, Path: path, Auth: action.Public}
}

func errorcodesPostNotFound() error { return testPostNotFound.New() }

// The application codes the framework's tests answer, registered with
// their messages as an application registers its own.
const (
	testPostNotFound errorcodes.Code = "POST_NOT_FOUND 404 post.not_found"
	testUserExists   errorcodes.Code = "USER_BAD_REQUEST_USER_ALREADY_EXISTS 400 user.already_exists"
)

var testMessages = errorcodes.Messages{
	"en":    {"post.not_found": "The post was not found.", "user.already_exists": "A user with this email address already exists."},
	"es":    {"post.not_found": "No se encontró la publicación.", "user.already_exists": "Ya existe un usuario con esta dirección de correo electrónico."},
	"zh-TW": {"post.not_found": "找不到該貼文。", "user.already_exists": "此電子郵件地址的使用者已存在。"},
}

type validationRule = validation.Rule
