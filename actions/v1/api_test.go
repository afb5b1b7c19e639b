package v1_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/posts"
)

// The cookie settings of the tests: a refresh cookie of an hour.
func testCookies() v1.Cookies { return v1.Cookies{MaxAge: time.Hour} }

// newAPI returns an API over a framework configured as the server's: a
// catalog of every code, the v1 rules and modifiers, and the
// re-authentication rule of the sensitive actions (ten minutes).
func newAPI(t *testing.T) *actiontest.API {
	t.Helper()
	catalog, err := errorcodes.NewCatalog([]string{"en", "es", "zh-TW"}, allCodes(), accounts.Messages(), posts.Messages())
	if err != nil {
		t.Fatal(err)
	}
	return actiontest.New(t, framework.Config{Catalog: catalog, Rules: v1.Rules(catalog), Mods: v1.Mods(catalog),
		Reauthentication: &framework.Reauthentication{
			MaxAge: 10 * time.Minute,
			Code: func(t action.OwnerType) errorcodes.Code {
				if t == accounts.Admins.Type {
					return accounts.Admins.Codes.SecondFactor.ReauthRequired
				}
				return accounts.Users.Codes.SecondFactor.ReauthRequired
			},
		}})
}

// allCodes are every code the bundled server answers.
func allCodes() []errorcodes.Code {
	return append(append(errorcodes.Framework(), accounts.AllErrorCodes()...), posts.ErrorCodes()...)
}

// wantError fails t unless res is the error code with status, and code is
// one the action declares in spec (or one of the framework's own).
func wantError(t *testing.T, res *actiontest.Response, spec action.Spec, status int, code string) {
	t.Helper()
	res.WantError(t, status, code)
	declared := slices.ContainsFunc(append(spec.Errors, errorcodes.Framework()...), func(c errorcodes.Code) bool { return c.ID() == code })
	if !declared {
		t.Errorf("%s answered %s, which it does not declare", spec.Name, code)
	}
}

// wantInvalid fails t unless res is 400 BAD_REQUEST_INVALID_ARGUMENTS
// naming each of fields.
func wantInvalid(t *testing.T, res *actiontest.Response, fields ...string) {
	t.Helper()
	res.WantError(t, http.StatusBadRequest, "BAD_REQUEST_INVALID_ARGUMENTS")
	got, _ := res.Body["fields"].(map[string]any)
	for _, f := range fields {
		if got[f] == nil {
			t.Errorf("the invalid %s is not named: %s", f, res.Raw)
		}
	}
}

// obj is the object under key in the body of res.
func obj(res *actiontest.Response, key string) map[string]any {
	m, _ := res.Body[key].(map[string]any)
	return m
}

// cleared reports whether res clears the cookie name.
func cleared(res *actiontest.Response, name string) bool {
	c := res.Cookie(name)
	return c != nil && c.Value == "" && c.Expires.Before(time.Now())
}

// newEnv runs t in parallel with the package's other tests, on engines,
// a database and a Redis namespace of its own, and returns an API to
// register the actions under test on.
func newEnv(t *testing.T) (*accountstest.Env, *actiontest.API) {
	t.Helper()
	t.Parallel()
	return accountstest.New(t), newAPI(t)
}
