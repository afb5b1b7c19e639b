package framework

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

var reauthNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func TestAssured(t *testing.T) {
	fresh, stale := reauthNow.Add(-time.Minute), reauthNow.Add(-11*time.Minute)
	for _, tc := range []struct {
		name string
		r    action.Reauth
		a    action.Assurance
		want bool
	}{
		{"nothing asked", action.ReauthNone, action.Assurance{}, true},
		{"level: no second factor", action.ReauthLevel, action.Assurance{Level: 1, AuthenticatedAt: stale}, true},
		{"level: second factor unused", action.ReauthLevel, action.Assurance{Level: 1, SecondFactor: true, AuthenticatedAt: fresh}, false},
		{"level: second factor used", action.ReauthLevel, action.Assurance{Level: 2, SecondFactor: true, AuthenticatedAt: stale}, true},
		{"recent: fresh", action.ReauthRecent, action.Assurance{Level: 1, AuthenticatedAt: fresh}, true},
		{"recent: exactly the age", action.ReauthRecent, action.Assurance{Level: 1, AuthenticatedAt: reauthNow.Add(-10 * time.Minute)}, true},
		{"recent: stale", action.ReauthRecent, action.Assurance{Level: 2, AuthenticatedAt: stale}, false},
		{"recent: unknown time", action.ReauthRecent, action.Assurance{Level: 2}, false},
		{"recent: fresh without the second factor", action.ReauthRecent, action.Assurance{Level: 1, SecondFactor: true, AuthenticatedAt: fresh}, false},
		{"factor: no second factor", action.ReauthFactor, action.Assurance{Level: 1, AuthenticatedAt: fresh}, true},
		{"factor: no second factor, stale", action.ReauthFactor, action.Assurance{Level: 1, AuthenticatedAt: stale}, false},
		{"factor: fresh password only", action.ReauthFactor, action.Assurance{Level: 2, SecondFactor: true, AuthenticatedAt: fresh, FactorAt: stale}, false},
		{"factor: never used", action.ReauthFactor, action.Assurance{Level: 2, SecondFactor: true, AuthenticatedAt: fresh}, false},
		{"factor: fresh factor", action.ReauthFactor, action.Assurance{Level: 2, SecondFactor: true, AuthenticatedAt: fresh, FactorAt: fresh}, true},
		{"factor: fresh factor, level 1", action.ReauthFactor, action.Assurance{Level: 1, SecondFactor: true, AuthenticatedAt: fresh, FactorAt: fresh}, false},
	} {
		if got := Assured(tc.r, tc.a, reauthNow, 10*time.Minute); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// assuredAuth names callers by their assurance: "fresh", "stale",
// "level1-2fa" (a fresh session that did not use its owner's second
// factor). Like the bundled server's, it reads the assurance only when
// the framework asks for it, and counts the requests that asked.
type assuredAuth struct{ asked *int }

func (a assuredAuth) Authenticate(ctx context.Context, r *http.Request, needs action.Needs) (*action.Caller, error) {
	c := &action.Caller{Type: "user", Client: action.Web}
	if !needs.Assurance {
		if r.Header.Get("Authorization") == "" {
			return nil, nil
		}
		return c, nil
	}
	if a.asked != nil {
		*a.asked++
	}
	switch r.Header.Get("Authorization") {
	case "fresh":
		c.Assurance = action.Assurance{Level: 1, AuthenticatedAt: reauthNow.Add(-time.Minute)}
	case "stale":
		c.Assurance = action.Assurance{Level: 1, AuthenticatedAt: reauthNow.Add(-time.Hour)}
	case "level1-2fa":
		c.Assurance = action.Assurance{Level: 1, SecondFactor: true, AuthenticatedAt: reauthNow.Add(-time.Minute)}
	default:
		return nil, nil
	}
	return c, nil
}

type reauthDetails struct {
	Methods []string `json:"methods"`
}

// TestReauthBeforeTheAction: the framework refuses a session that does
// not meet the action's requirement before the action runs, with the
// configured code and details, and lets every other through. It asks the
// authenticator for the session's assurance for those actions only.
func TestReauthBeforeTheAction(t *testing.T) {
	ran, asked := 0, 0
	f := newTestFramework(t, Config{
		Authenticator: assuredAuth{asked: &asked},
		Now:           func() time.Time { return reauthNow },
		Reauthentication: &Reauthentication{
			MaxAge: 10 * time.Minute,
			Code:   func(action.OwnerType) errorcodes.Code { return errorcodes.Forbidden },
			Details: func(context.Context, *action.Caller, action.Reauth) (any, error) {
				return reauthDetails{Methods: []string{"password"}}, nil
			},
		},
	})
	for _, r := range []struct {
		name, path string
		reauth     action.Reauth
	}{{"V1Sensitive", "/v1/sensitive", action.ReauthRecent}, {"V1Level", "/v1/level", action.ReauthLevel}, {"V1Plain", "/v1/plain", action.ReauthNone}} {
		spec := action.Spec{Name: r.name, Path: r.path, Auth: action.Owner("user"), Reauth: r.reauth}
		Register(f, actionFunc[noArgs, whoamiResult]{spec: spec, run: func(*action.Request) (*whoamiResult, error) {
			ran++
			return &whoamiResult{Type: "ran"}, nil
		}})
	}
	for _, tc := range []struct {
		path, caller string
		want         int
	}{
		{"/v1/sensitive", "fresh", 200},
		{"/v1/sensitive", "stale", 403},
		{"/v1/sensitive", "level1-2fa", 403},
		{"/v1/sensitive", "", 401},
		{"/v1/level", "stale", 200},
		{"/v1/level", "level1-2fa", 403},
		{"/v1/plain", "level1-2fa", 200},
	} {
		before, askedBefore := ran, asked
		res := do(t, f, http.MethodPost, tc.path, "", "", "Authorization", tc.caller)
		if res.Code != tc.want {
			t.Errorf("%s as %q: got %d, want %d: %s", tc.path, tc.caller, res.Code, tc.want, res.Raw)
		}
		if (ran > before) != (tc.want == 200) {
			t.Errorf("%s as %q: the action ran %d times", tc.path, tc.caller, ran-before)
		}
		if wantAsked := tc.caller != "" && tc.path != "/v1/plain"; (asked > askedBefore) != wantAsked {
			t.Errorf("%s as %q: the authenticator was asked for the assurance %d times, want it asked: %v", tc.path, tc.caller,
				asked-askedBefore, wantAsked)
		}
		if tc.want == 403 && (res.Body["error"] != "FORBIDDEN" || res.Body["methods"] == nil || res.Body["requestId"] == nil) {
			t.Errorf("%s as %q: refusal %s, want FORBIDDEN with methods", tc.path, tc.caller, res.Raw)
		}
	}
}

func TestReauthNeedsAnOwnerActionAndAConfiguration(t *testing.T) {
	cfg := &Reauthentication{Code: func(action.OwnerType) errorcodes.Code { return errorcodes.Forbidden }}
	for _, tc := range []struct {
		name string
		spec action.Spec
		cfg  *Reauthentication
	}{
		{"public", action.Spec{Name: "V1A", Path: "/v1/a", Auth: action.Public, Reauth: action.ReauthRecent}, cfg},
		{"logged out", action.Spec{Name: "V1A", Path: "/v1/a", Auth: action.LoggedOut("user"), Reauth: action.ReauthLevel}, cfg},
		{"no configuration", action.Spec{Name: "V1A", Path: "/v1/a", Auth: action.Owner("user"), Reauth: action.ReauthRecent}, nil},
		{"unknown requirement", action.Spec{Name: "V1A", Path: "/v1/a", Auth: action.Owner("user"), Reauth: 9}, cfg},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered, want a panic", tc.name)
				}
			}()
			f := New(Config{Reauthentication: tc.cfg})
			Register(f, actionFunc[noArgs, whoamiResult]{spec: tc.spec})
		}()
	}
}

// TestErrorDetails: a coded error's details are members of its body; a
// value that is not a JSON object is an internal error, never a body
// whose status and content disagree.
func TestErrorDetails(t *testing.T) {
	f := newTestFramework(t, Config{})
	Register(f, actionFunc[noArgs, whoamiResult]{spec: specFor("V1Detailed", "/v1/detailed"), run: func(*action.Request) (*whoamiResult, error) {
		e := testPostNotFound.New()
		e.Details = reauthDetails{Methods: []string{"totp"}}
		return nil, e
	}})
	Register(f, actionFunc[noArgs, whoamiResult]{spec: specFor("V1Broken", "/v1/broken"), run: func(*action.Request) (*whoamiResult, error) {
		e := testPostNotFound.New()
		e.Details = []string{"not", "an", "object"}
		return nil, e
	}})
	res := do(t, f, http.MethodGet, "/v1/detailed", "", "")
	if res.Code != 404 || res.Body["error"] != "POST_NOT_FOUND" || res.Body["message"] == nil ||
		len(res.Body["methods"].([]any)) != 1 || res.Body["requestId"] == nil {
		t.Errorf("detailed error: %d %s", res.Code, res.Raw)
	}
	if res := do(t, f, http.MethodGet, "/v1/broken", "", ""); res.Code != 500 || res.Body["error"] != "INTERNAL_SERVER_ERROR" {
		t.Errorf("details that are no object: %d %s", res.Code, res.Raw)
	}
}
