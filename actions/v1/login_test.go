package v1_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestLogin runs V1Login and V1AdminLogin on the real engine: each kind
// answers its account under its own key, sets its own cookies (Secure when
// configured), and gives an app its refresh token and device value; a
// device cookie the account trusts is kept.
func TestLogin(t *testing.T) {
	env, api := newEnv(t)
	cookies := v1.Cookies{Secure: true, MaxAge: time.Hour}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		framework.Register(api.Framework, &v1.Login{Accounts: svc.Service, Cookies: cookies})
	}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		typ := string(svc.Kind.Type)
		path := "/v1/" + svc.Kind.Plural + "/login"
		acc := svc.NewAccount(t)
		args := actiontest.Args{"email": strings.ToUpper(acc.Email), "password": accountstest.Password}
		web := api.Call(http.MethodPost, path, args).WantOK(t)
		if web.Status != http.StatusCreated || obj(web, typ)["id"] != acc.ID.String() || web.String("refreshToken") != "" || web.String("token") == "" {
			t.Errorf("%s web login answered %d %s", typ, web.Status, web.Raw)
		}
		refresh, device := web.Cookie("jwt-"+typ+"-refresh"), web.Cookie("jwt-"+typ+"-device")
		if refresh == nil || !refresh.Secure || refresh.MaxAge != 3600 || device == nil || !device.Secure || device.Value == "" {
			t.Fatalf("%s web cookies %+v", typ, web.Cookies)
		}
		again := api.With("Cookie", device.Name+"="+device.Value).Call(http.MethodPost, path, args).WantOK(t)
		if c := again.Cookie(device.Name); c == nil || c.Value != device.Value {
			t.Errorf("%s: the trusted device cookie was replaced by %+v", typ, c)
		}
		app := api.With("X-Client", "app").Call(http.MethodPost, path, args).WantOK(t)
		if app.String("refreshToken") == "" || app.String("deviceToken") == "" {
			t.Errorf("%s app login answered %s", typ, app.Raw)
		}
		args["deviceToken"] = app.String("deviceToken")
		if kept := api.With("X-Client", "app").Call(http.MethodPost, path, args).WantOK(t); kept.String("deviceToken") != app.String("deviceToken") {
			t.Errorf("%s: the app's trusted device value was replaced by %q", typ, kept.String("deviceToken"))
		}
		args["deviceToken"] = 42 // not a string: no device at all
		api.With("X-Client", "app").Call(http.MethodPost, path, args).WantOK(t)
	}
}

// TestLoginRefusals: the engine's refusals become the kind's codes, a
// slowed attempt 429 with Retry-After; arguments outside the schema are
// named; a caller already logged in as the kind, or a cross-site request,
// is refused.
func TestLoginRefusals(t *testing.T) {
	env, api := newEnv(t)
	users := env.NewService(t, accounts.Users)
	users.Mail.RequireVerified = true
	login := &v1.Login{Accounts: users.Service, Cookies: testCookies()}
	admin := &v1.Login{Accounts: env.Admins.Service, Cookies: testCookies()}
	framework.Register(api.Framework, login)
	framework.Register(api.Framework, admin)
	inactive, deleted, unverified := users.NewAccount(t), users.NewAccount(t), users.NewAccount(t)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Management.Delete(t.Context(), deleted.ID, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	call := func(path, email, password string) *actiontest.Response {
		return api.Call(http.MethodPost, path, actiontest.Args{"email": email, "password": password})
	}
	for _, tc := range []struct {
		name, path, email, password, code string
	}{
		{"wrong password", "/v1/users/login", unverified.Email, "Wrong-password-1", "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"unknown address", "/v1/users/login", accountstest.NewEmail(), accountstest.Password, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"inactive", "/v1/users/login", inactive.Email, accountstest.Password, "USER_BAD_REQUEST_ACCOUNT_INACTIVE"},
		{"deleted", "/v1/users/login", deleted.Email, accountstest.Password, "USER_BAD_REQUEST_ACCOUNT_DELETED"},
		{"unverified", "/v1/users/login", unverified.Email, accountstest.Password, "USER_BAD_REQUEST_EMAIL_NOT_VERIFIED"},
		{"an admin's wrong password", "/v1/admins/login", env.Admins.NewAccount(t).Email, "Wrong-password-1", "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
	} {
		spec := login.Spec()
		if strings.Contains(tc.path, "admins") {
			spec = admin.Spec()
		}
		wantError(t, call(tc.path, tc.email, tc.password), spec, http.StatusBadRequest, tc.code)
	}
	for range accountstest.SlowDownAfter - 1 { // the wrong password above was the first failure
		call("/v1/users/login", unverified.Email, "Wrong-password-1")
	}
	slowed := call("/v1/users/login", unverified.Email, accountstest.Password)
	wantError(t, slowed, login.Spec(), http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	if s, _ := strconv.Atoi(slowed.Header.Get("Retry-After")); s < 59 || s > 60 {
		t.Errorf("Retry-After %q, want the first delay of a minute", slowed.Header.Get("Retry-After"))
	}
	wantInvalid(t, api.Call(http.MethodPost, "/v1/users/login", actiontest.Args{"email": "ada"}), "email", "password")
	wantInvalid(t, call("/v1/users/login", unverified.Email, strings.Repeat("a", 1025)), "password")
	_, iss := env.Users.LoggedIn(t, action.Web)
	if _, err := env.Users.Accounts.VerifyEmail(t.Context(), env.DB, iss.Account.ID, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	wantError(t, api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v1/users/login",
		actiontest.Args{"email": iss.Account.Email, "password": accountstest.Password}), login.Spec(), http.StatusUnauthorized, "UNAUTHORIZED")
	adminAcc, adminIss := env.Admins.LoggedIn(t, action.Web)
	api.As(env.Admins.Caller(adminIss)).Call(http.MethodPost, "/v1/admins/login",
		actiontest.Args{"email": adminAcc.Email, "password": accountstest.Password}).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
	api.As(env.Admins.Caller(adminIss)).Call(http.MethodPost, "/v1/users/login",
		actiontest.Args{"email": iss.Account.Email, "password": accountstest.Password}).WantOK(t) // another kind may
	wantError(t, api.With("Origin", "https://elsewhere.example").Call(http.MethodPost, "/v1/users/login",
		actiontest.Args{"email": iss.Account.Email, "password": accountstest.Password}), login.Spec(), http.StatusForbidden, "FORBIDDEN")
}
