package v1_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/accounts/accountstest"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestRegister runs V1Register on the real engine: a browser gets the
// account, an access token and its refresh and device cookies, never the
// raw refresh token; an app gets both tokens and its device value in the
// body. The address is trimmed and lowercased, the locale spelled as
// configured.
func TestRegister(t *testing.T) {
	env, api := newEnv(t)
	a := &v1.Register{Accounts: env.Users.Service, Cookies: testCookies()}
	framework.Register(api.Framework, a)
	email := accountstest.NewEmail()
	web := api.Call(http.MethodPost, "/v1/users/register", actiontest.Args{
		"email": " " + strings.ToUpper(email), "password": accountstest.Password, "locale": "zh-tw", "timezone": "Europe/Paris",
	}).WantOK(t)
	user := obj(web, "user")
	if web.Status != http.StatusCreated || user["email"] != email || user["locale"] != "zh-TW" || user["timezone"] != "Europe/Paris" ||
		web.String("token") == "" || web.String("refreshToken") != "" || web.String("deviceToken") != "" || user["password"] != nil {
		t.Errorf("a browser's registration answered %d %s", web.Status, web.Raw)
	}
	if c := web.Cookie("jwt-user-refresh"); c == nil || c.Value == "" || !c.HttpOnly || c.MaxAge != 3600 || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("refresh cookie %+v", c)
	}
	if c := web.Cookie("jwt-user-device"); c == nil || c.Value == "" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Errorf("device cookie %+v", c)
	}
	app := api.With("X-Client", "app").With("X-Platform", "android").Call(http.MethodPost, "/v1/users/register",
		actiontest.Args{"email": accountstest.NewEmail(), "password": accountstest.Password}).WantOK(t)
	if app.String("refreshToken") == "" || app.String("deviceToken") == "" || obj(app, "user")["locale"] != "en" {
		t.Errorf("an app's registration answered %s", app.Raw)
	}
	wantError(t, api.Call(http.MethodPost, "/v1/users/register", actiontest.Args{"email": email, "password": accountstest.Password}),
		a.Spec(), http.StatusBadRequest, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
}

// TestRegisterArguments: arguments outside the schema are named in a 400
// before the engine runs, an unknown time zone is its own code, and a
// logged-in user or a cross-site request is refused.
func TestRegisterArguments(t *testing.T) {
	env, api := newEnv(t)
	a := &v1.Register{Accounts: env.Users.Service, Cookies: testCookies()}
	framework.Register(api.Framework, a)
	ok := func() actiontest.Args {
		return actiontest.Args{"email": accountstest.NewEmail(), "password": accountstest.Password}
	}
	with := func(k string, v any) actiontest.Args { args := ok(); args[k] = v; return args }
	for _, tc := range []struct {
		name  string
		args  actiontest.Args
		field string
	}{
		{"no email", actiontest.Args{"password": accountstest.Password}, "email"},
		{"not an email", with("email", "ada"), "email"},
		{"no password", actiontest.Args{"email": accountstest.NewEmail()}, "password"},
		{"a weak password", with("password", "password"), "password"},
		{"a long first name", with("firstName", strings.Repeat("a", 65)), "firstName"},
		{"a long last name", with("lastName", strings.Repeat("a", 65)), "lastName"},
		{"an unknown locale", with("locale", "fr"), "locale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantInvalid(t, api.Call(http.MethodPost, "/v1/users/register", tc.args), tc.field)
		})
	}
	for _, tz := range []string{"Mars/Olympus", "Local"} {
		wantError(t, api.Call(http.MethodPost, "/v1/users/register", with("timezone", tz)), a.Spec(), http.StatusBadRequest,
			"USER_BAD_REQUEST_INVALID_TIMEZONE")
	}
	_, iss := env.Users.LoggedIn(t, "web")
	wantError(t, api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v1/users/register", ok()), a.Spec(),
		http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, api.With("Sec-Fetch-Site", "cross-site").Call(http.MethodPost, "/v1/users/register", ok()), a.Spec(),
		http.StatusForbidden, "FORBIDDEN")
	if n := len(env.Users.Live(t, iss.Account.ID)); n != 1 {
		t.Errorf("%d sessions of the logged-in caller", n)
	}
}
