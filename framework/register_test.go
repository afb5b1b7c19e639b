package framework

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
)

type claimsStatus struct {
	Status int `json:"status"`
}

type claimsSuccess struct {
	OK bool `json:"success,omitempty"`
}

type embedsStatus struct {
	claimsStatus
	Other string `json:"other"`
}

type noTag struct {
	Name string
}

type unknownTag struct {
	Name string `arg:"name" validate:"frobnicate"`
}

type unknownTagKey struct {
	Name string `arg:"name" vaildate:"required"`
}

type modOnInt struct {
	N int `arg:"n" mod:"trim"`
}

type badDefault struct {
	N int `arg:"n" default:"ten"`
}

type defaultBreaksRule struct {
	S string `arg:"s" default:"toolong" validate:"max=3"`
}

type dupArg struct {
	A string `arg:"a"`
	B string `arg:"a"`
}

type unsupported struct {
	L []int `arg:"l"`
}

type badPattern struct {
	S string `arg:"s" validate:"pattern=("`
}

type goodResult struct {
	Value string `json:"value"`
}

func registerSpec[I, O any](f *Framework, spec action.Spec) {
	Register(f, actionFunc[I, O]{spec: spec, run: func(*action.Request) (*O, error) { return new(O), nil }})
}

func TestRegistrationPanicsOnBadDeclarations(t *testing.T) {
	ok := action.Spec{Name: "V1Ok", Path: "/v1/ok", Auth: action.Public}
	with := func(mut func(*action.Spec)) action.Spec { s := ok; mut(&s); return s }
	for _, tc := range []struct {
		name     string
		register func(f *Framework)
		want     string
	}{
		{"duplicate path", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, ok)
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Name = "V1Other" }))
		}, "already taken"},
		{"duplicate name", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, ok)
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Path = "/v1/other" }))
		}, "registered twice"},
		{"path taken by a plain handler", func(f *Framework) {
			f.Handle(http.MethodGet, "/v1/ok", http.NotFoundHandler())
			registerSpec[noArgs, goodResult](f, ok)
		}, "already taken"},
		{"bad name", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Name = "Login" }))
		}, "must look like"},
		{"uppercase path", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Path = "/v1/Users/login" }))
		}, "lowercase"},
		{"path without version", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Path = "/users/login" }))
		}, "version first"},
		{"separator in path", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Path = "/v1/users/logout-all" }))
		}, "lowercase"},
		{"version mismatch", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Path = "/v2/ok" }))
		}, "version differs"},
		{"non-2xx status", func(f *Framework) { registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Status = 302 })) }, "not 2xx"},
		{"owner auth without type", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Auth = action.Auth{Kind: action.KindOwner} }))
		}, "needs an owner type"},
		{"unknown client", func(f *Framework) {
			registerSpec[noArgs, goodResult](f, with(func(s *action.Spec) { s.Clients = []action.Client{"tv"} }))
		}, "unknown client"},
		{"result claims status", func(f *Framework) { registerSpec[noArgs, claimsStatus](f, ok) }, `may not declare "status"`},
		{"result claims success", func(f *Framework) { registerSpec[noArgs, claimsSuccess](f, ok) }, `may not declare "success"`},
		{"embedded result claims status", func(f *Framework) { registerSpec[noArgs, embedsStatus](f, ok) }, `may not declare "status"`},
		{"result not a struct", func(f *Framework) { registerSpec[noArgs, string](f, ok) }, "must be a struct"},
		{"field without arg tag", func(f *Framework) { registerSpec[noTag, goodResult](f, ok) }, "needs an exported field with an arg tag"},
		{"unknown validate option", func(f *Framework) { registerSpec[unknownTag, goodResult](f, ok) }, `unknown or misplaced validate option "frobnicate"`},
		{"misspelled tag key", func(f *Framework) { registerSpec[unknownTagKey, goodResult](f, ok) }, `unknown tag "vaildate"`},
		{"mod on an int", func(f *Framework) { registerSpec[modOnInt, goodResult](f, ok) }, "applies to strings only"},
		{"default of the wrong type", func(f *Framework) { registerSpec[badDefault, goodResult](f, ok) }, `default "ten"`},
		{"default breaking its rules", func(f *Framework) { registerSpec[defaultBreaksRule, goodResult](f, ok) }, "breaks its own rules"},
		{"argument declared twice", func(f *Framework) { registerSpec[dupArg, goodResult](f, ok) }, "twice"},
		{"unsupported type", func(f *Framework) { registerSpec[unsupported, goodResult](f, ok) }, "unsupported argument type"},
		{"bad pattern", func(f *Framework) { registerSpec[badPattern, goodResult](f, ok) }, "pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if p == nil {
					t.Fatal("registration did not panic")
				}
				if msg, _ := p.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q does not mention %q", p, tc.want)
				}
			}()
			tc.register(New(Config{}))
		})
	}
}

// namedRule is a custom rule supplied through Config.Rules.
type namedRule struct{}

func (namedRule) Validate(v any) error {
	if s, _ := v.(string); s == "bad" {
		return errString("is bad")
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

type namedArgs struct {
	S string `arg:"s" mod:"shout" validate:"custom"`
}

func TestNamedRulesAndMods(t *testing.T) {
	f := New(Config{
		Rules: map[string]validationRule{"custom": namedRule{}},
		Mods:  map[string]func(string) string{"shout": func(s string) string { return s + "!" }},
	})
	Register(f, echoAction[namedArgs]{})
	if res := do(t, f, http.MethodGet, "/v1/echo?s=hi", "", ""); res.Body["S"] != "hi!" {
		t.Errorf("named mod: got %v, want hi!", res.Body)
	}
	f2 := New(Config{
		Rules: map[string]validationRule{"custom": namedRule{}},
		Mods:  map[string]func(string) string{"shout": func(s string) string { return "bad" }},
	})
	Register(f2, echoAction[namedArgs]{})
	res := do(t, f2, http.MethodGet, "/v1/echo?s=x", "", "")
	if res.Code != 400 || res.field(t, "s") != "is bad" {
		t.Errorf("named rule: got %d %s, want 400 with fields.s = is bad", res.Code, res.Raw)
	}
}

// echoAction returns its arguments as the result.
type echoAction[I any] struct{}

func (echoAction[I]) Spec() action.Spec {
	return action.Spec{Name: "V1Echo", Path: "/v1/echo", Auth: action.Public}
}

func (echoAction[I]) Run(_ context.Context, _ *action.Request, in *I) (*I, error) { return in, nil }

func TestDescriptors(t *testing.T) {
	f := newTestFramework(t, Config{})
	ds := f.Actions()
	if len(ds) != 1 || ds[0].Spec.Name != "V1Probe" {
		t.Fatalf("got %v, want the probe", ds)
	}
	byName := map[string]ArgInfo{}
	for _, a := range ds[0].Args {
		byName[a.Name] = a
	}
	if a := byName["count"]; a.Type != "integer" || a.Default != "3" || !a.HasDef || *a.Min != 1 || *a.Max != 100 {
		t.Errorf("count = %+v", a)
	}
	if a := byName["must"]; !a.Required {
		t.Errorf("must is not required: %+v", a)
	}
	if a := byName["id"]; a.Format != "uuid7" || !a.Nullable {
		t.Errorf("id = %+v", a)
	}
	if _, ok := byName["-"]; ok {
		t.Errorf("a skipped field is described")
	}
}

// conventional declares client types of its own.
type conventional struct{ clients []action.Client }

func (conventional) Authenticate(context.Context, *http.Request, action.Needs) (*action.Caller, error) {
	return nil, nil
}

func (c conventional) Conventions() Conventions { return Conventions{Clients: c.clients} }

// TestConventionsRefuseBadClientTypes: an authenticator's client types
// must be usable header values, each given once; an action may only name
// declared ones.
func TestConventionsRefuseBadClientTypes(t *testing.T) {
	for _, bad := range [][]action.Client{{""}, {"Kiosk"}, {"kiosk", "kiosk"}, {"a b"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("client types %q: no panic", bad)
				}
			}()
			New(Config{Authenticator: conventional{clients: bad}})
		}()
	}
	f := New(Config{Authenticator: conventional{clients: []action.Client{"kiosk", "cli"}}})
	defer func() {
		if recover() == nil {
			t.Error("an action naming client web, which the conventions do not declare: no panic")
		}
	}()
	spec := specFor("V1Web", "/v1/web")
	spec.Auth, spec.Clients = action.Owner("user"), []action.Client{action.Web}
	Register(f, actionFunc[noArgs, noArgs]{spec: spec, run: func(*action.Request) (*noArgs, error) { return &noArgs{}, nil }})
}
