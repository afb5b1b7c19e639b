package v1_test

import (
	"net/http"
	"testing"

	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestLogout runs V1Logout on the real engine: it ends the caller's
// session and the one of the refresh token presented (the cookie, or an
// app's argument) and clears the cookie; a token of nobody's is ignored.
// Anonymous and cross-site calls are refused.
func TestLogout(t *testing.T) {
	env, api := newEnv(t)
	users := env.Users
	a := &v1.Logout{Accounts: users.Service, Cookies: testCookies()}
	framework.Register(api.Framework, a)

	acc, caller := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.Web)
	res := api.As(users.Caller(caller)).With("Cookie", "jwt-user-refresh="+other.RefreshToken).
		Call(http.MethodPost, "/v1/users/logout", nil).WantOK(t)
	if !cleared(res, "jwt-user-refresh") || len(users.Live(t, acc.ID)) != 0 {
		t.Errorf("a browser's logout: cookies %v, %d sessions left", res.Cookies, len(users.Live(t, acc.ID)))
	}

	app, appCaller := users.LoggedIn(t, action.App)
	appOther := users.NewSession(t, app, action.App)
	kept := users.NewSession(t, app, action.App)
	api.As(users.Caller(appCaller)).With("X-Client", "app").
		Call(http.MethodPost, "/v1/users/logout", actiontest.Args{"refreshToken": appOther.RefreshToken}).WantOK(t)
	if live := users.Live(t, app.ID); len(live) != 1 || live[0].SessionID != kept.Session.ID {
		t.Errorf("an app's logout left %+v, want the third session alone", live)
	}
	api.As(users.Caller(kept)).Call(http.MethodPost, "/v1/users/logout",
		actiontest.Args{"refreshToken": "not-a-token"}).WantOK(t)
	if n := len(users.Live(t, app.ID)); n != 0 {
		t.Errorf("%d sessions left after logging out with a malformed token", n)
	}

	wantError(t, api.Call(http.MethodPost, "/v1/users/logout", nil), a.Spec(), http.StatusUnauthorized, "UNAUTHORIZED")
	_, iss := users.LoggedIn(t, action.Web)
	wantError(t, api.As(users.Caller(iss)).With("Sec-Fetch-Site", "cross-site").Call(http.MethodPost, "/v1/users/logout", nil),
		a.Spec(), http.StatusForbidden, "FORBIDDEN")
	if n := len(users.Live(t, iss.Account.ID)); n != 1 {
		t.Errorf("a cross-site logout ended %d sessions", 1-n)
	}
}

// TestLogoutAll runs V1LogoutAll and V1AdminLogoutAll on the real engine:
// every session of the caller ends, its token version goes up, and the
// kind's cookie is cleared; another kind's caller is refused.
func TestLogoutAll(t *testing.T) {
	env, api := newEnv(t)
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		framework.Register(api.Framework, &v1.LogoutAll{Accounts: svc.Service, Cookies: testCookies()})
	}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		acc, iss := svc.LoggedIn(t, action.Web)
		svc.NewSession(t, acc, action.App)
		path := "/v1/" + svc.Kind.Plural + "/logoutall"
		res := api.As(svc.Caller(iss)).Call(http.MethodPost, path, nil).WantOK(t)
		if !cleared(res, "jwt-"+string(svc.Kind.Type)+"-refresh") || len(svc.Live(t, acc.ID)) != 0 || svc.Reload(t, acc.ID).TokenVersion != 1 {
			t.Errorf("%s: cookies %v, %d sessions left, version %d", path, res.Cookies, len(svc.Live(t, acc.ID)), svc.Reload(t, acc.ID).TokenVersion)
		}
	}
	_, user := env.Users.LoggedIn(t, action.Web)
	api.As(env.Users.Caller(user)).Call(http.MethodPost, "/v1/admins/logoutall", nil).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
	if n := len(env.Users.Live(t, user.Account.ID)); n != 1 {
		t.Errorf("a user's call of the admins' logoutall ended %d sessions", 1-n)
	}
}

// TestReadAdmin runs V1AdminRead on the real engine: the admin's own
// account under "admin", read from the engine when the authenticator
// loaded none; another admin's id is the admins' not-found code.
func TestReadAdmin(t *testing.T) {
	env, api := newEnv(t)
	a := &v1.Read{Accounts: env.Admins.Service}
	framework.Register(api.Framework, a)
	acc, iss := env.Admins.LoggedIn(t, action.Web)
	caller := env.Admins.Caller(iss)
	caller.Record = nil
	res := api.As(caller).Call(http.MethodGet, "/v1/admins/read", nil).WantOK(t)
	if obj(res, "admin")["id"] != acc.ID.String() || res.Body["user"] != nil {
		t.Errorf("answered %s", res.Raw)
	}
	other := env.Admins.NewAccount(t)
	wantError(t, api.As(caller).Call(http.MethodGet, "/v1/admins/read", actiontest.Args{"id": other.ID.String()}), a.Spec(),
		http.StatusBadRequest, "ADMIN_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST")
}
