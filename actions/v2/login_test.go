package v2_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	v2 "github.com/actionkit/actionkit/actions/v2"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestLogin runs V2Login and V2AdminLogin on the real engine: V1Login's
// answer and cookies, plus the session opened (its id, expiry, client and
// platform) and the access token's expiry; the refusals are V1Login's,
// and so are the declaration's rules and codes.
func TestLogin(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	api := actiontest.New(t, framework.Config{})
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		a := &v2.Login{Accounts: svc.Service, Cookies: v1.Cookies{MaxAge: time.Hour}}
		framework.Register(api.Framework, a)
		s, v1s := a.Spec(), (&v1.Login{Accounts: svc.Service}).Spec()
		if s.Name != "V2"+svc.Kind.Title+"Login" || s.Path != "/v2/"+svc.Kind.Plural+"/login" || s.Auth != v1s.Auth ||
			s.RateClass != v1s.RateClass || !s.SameSite || s.Status != http.StatusCreated || !slices.Equal(s.Errors, v1s.Errors) {
			t.Errorf("declared %+v, want V1Login's rules under the v2 name and path", s)
		}
	}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		typ, path := string(svc.Kind.Type), "/v2/"+svc.Kind.Plural+"/login"
		acc := svc.NewAccount(t)
		before := env.Clock.Now()
		res := api.With("X-Client", "app").With("X-Platform", "android").
			Call(http.MethodPost, path, actiontest.Args{"email": acc.Email, "password": accountstest.Password}).WantOK(t)
		live := svc.Live(t, acc.ID)
		session, _ := res.Body["session"].(map[string]any)
		if len(live) != 1 || session["id"] != live[0].SessionID.String() || session["client"] != "app" || session["platform"] != "android" ||
			session["expiresAt"] != live[0].ExpiresAt.Format(time.RFC3339Nano) {
			t.Errorf("%s: session %v, want %+v", typ, session, live)
		}
		exp, err := time.Parse(time.RFC3339, res.String("tokenExpiresAt"))
		if err != nil || exp.Before(before.Add(accountstest.AccessTTL-time.Second)) || exp.After(before.Add(accountstest.AccessTTL+time.Minute)) {
			t.Errorf("%s: tokenExpiresAt %q (%v), want about %v from now", typ, res.String("tokenExpiresAt"), err, accountstest.AccessTTL)
		}
		if res.String("token") == "" || res.String("refreshToken") == "" || res.String("deviceToken") == "" || res.Body[typ] == nil ||
			res.Cookie("jwt-"+typ+"-refresh") == nil {
			t.Errorf("%s: answered %s, want V1Login's answer too", typ, res.Raw)
		}
		api.Call(http.MethodPost, path, actiontest.Args{"email": acc.Email, "password": "Wrong-password-1"}).
			WantError(t, http.StatusBadRequest, svc.Kind.Codes.InvalidCredentials.ID())
	}
	_, iss := env.Users.LoggedIn(t, action.Web)
	api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v2/users/login",
		actiontest.Args{"email": iss.Account.Email, "password": accountstest.Password}).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
	res := api.Call(http.MethodPost, "/v2/users/login", actiontest.Args{"email": "ada"})
	res.WantError(t, http.StatusBadRequest, "BAD_REQUEST_INVALID_ARGUMENTS")
	if f, _ := res.Body["fields"].(map[string]any); f["email"] == nil || f["password"] == nil {
		t.Errorf("the invalid arguments are not named: %s", res.Raw)
	}
}
