package v1_test

import (
	"net/http"
	"testing"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/queues"
)

const newPassword = "Another-horse-battery-7"

// TestChangePassword runs V1ChangePassword and V1AdminChangePassword on
// the real engine: new tokens for the caller's session and its refresh
// cookie (the raw token in the body for an app only); a wrong current
// password is the kind's code, the same password a field error, arguments
// outside the schema are named, and a call from an ended session, an
// anonymous or a cross-site one is refused.
func TestChangePassword(t *testing.T) {
	env, api := newEnv(t)
	specs := map[*accountstest.Service]action.Spec{}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		a := &v1.ChangePassword{Credentials: svc.Credentials, Cookies: testCookies()}
		framework.Register(api.Framework, a)
		specs[svc] = a.Spec()
	}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		typ, path := string(svc.Kind.Type), "/v1/"+svc.Kind.Plural+"/changepassword"
		_, web := svc.LoggedIn(t, action.Web)
		res := api.As(svc.Caller(web)).Call(http.MethodPost, path,
			actiontest.Args{"currentPassword": accountstest.Password, "newPassword": newPassword}).WantOK(t)
		if c := res.Cookie("jwt-" + typ + "-refresh"); c == nil || c.Value == "" || res.String("token") == "" ||
			res.String("refreshToken") != "" || obj(res, typ)["id"] != web.Account.ID.String() {
			t.Errorf("%s: a browser's change answered %s with %v", typ, res.Raw, res.Cookies)
		}
		_, app := svc.LoggedIn(t, action.App)
		res = api.As(svc.Caller(app)).With("X-Client", "app").Call(http.MethodPost, path,
			actiontest.Args{"currentPassword": accountstest.Password, "newPassword": newPassword}).WantOK(t)
		if res.String("refreshToken") == "" || res.String("refreshToken") == app.RefreshToken {
			t.Errorf("%s: an app's change answered %s", typ, res.Raw)
		}
		_, iss := svc.LoggedIn(t, action.Web)
		wantError(t, api.As(svc.Caller(iss)).Call(http.MethodPost, path,
			actiontest.Args{"currentPassword": "Wrong-password-1", "newPassword": newPassword}),
			specs[svc], http.StatusBadRequest, svc.Kind.Codes.InvalidCurrentPassword.ID())
	}
	a := specs[env.Users]
	acc, iss := env.Users.LoggedIn(t, action.Web)
	user := api.As(env.Users.Caller(iss))
	same := user.Call(http.MethodPost, "/v1/users/changepassword",
		actiontest.Args{"currentPassword": accountstest.Password, "newPassword": accountstest.Password})
	wantInvalid(t, same, "newPassword")
	if f, _ := obj(same, "fields")["newPassword"].(string); f == "" {
		t.Errorf("the same password answered %s", same.Raw)
	}
	wantInvalid(t, user.Call(http.MethodPost, "/v1/users/changepassword", actiontest.Args{"newPassword": "weak"}),
		"currentPassword", "newPassword")
	wantError(t, api.Call(http.MethodPost, "/v1/users/changepassword",
		actiontest.Args{"currentPassword": accountstest.Password, "newPassword": newPassword}), a, http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, user.With("Sec-Fetch-Site", "cross-site").Call(http.MethodPost, "/v1/users/changepassword",
		actiontest.Args{"currentPassword": accountstest.Password, "newPassword": newPassword}), a, http.StatusForbidden, "FORBIDDEN")
	if err := env.Users.Logout(t.Context(), acc.ID, iss.Session.ID, "", accountstest.Origin(action.Web)); err != nil {
		t.Fatal(err)
	}
	wantError(t, user.Call(http.MethodPost, "/v1/users/changepassword",
		actiontest.Args{"currentPassword": accountstest.Password, "newPassword": newPassword}), a, http.StatusUnauthorized, "UNAUTHORIZED")
}

// TestPasswordReset runs V1RequestPasswordReset and V1ResetPassword on the
// real engine: a request answers {} for any address and queues its job; a
// reset with a mailed token answers {} and sets the device cookie (no
// refresh cookie: it does not log in); a bad token is its own code; bad
// arguments are named; without mail the request is 503.
func TestPasswordReset(t *testing.T) {
	env, api := newEnv(t)
	request := &v1.RequestPasswordReset{Credentials: env.Users.Credentials}
	reset := &v1.ResetPassword{Credentials: env.Users.Credentials, Cookies: testCookies()}
	framework.Register(api.Framework, request)
	framework.Register(api.Framework, reset)
	acc := env.Users.NewAccount(t)
	for _, email := range []string{acc.Email, accountstest.NewEmail()} {
		res := api.Call(http.MethodPost, "/v1/users/requestpasswordreset", actiontest.Args{"email": email}).WantOK(t)
		if len(res.Body) != 2 { // status and success
			t.Errorf("the request answered %s", res.Raw)
		}
	}
	if jobs := env.Jobs(t, queues.MailQueue, accounts.V1RequestPasswordResetTask); len(jobs) != 2 {
		t.Errorf("%d jobs queued, want 2", len(jobs))
	}
	wantInvalid(t, api.Call(http.MethodPost, "/v1/users/requestpasswordreset", actiontest.Args{"email": "ada"}), "email")

	if err := env.Users.Credentials.RunPasswordResetRequest(t.Context(), acc.Email, accountstest.Origin(action.Web)); err != nil {
		t.Fatal(err)
	}
	token := accountstest.TokenOf(t, env.Mails(t, acc.Email)[0])
	wantInvalid(t, api.Call(http.MethodPost, "/v1/users/resetpassword", actiontest.Args{"token": token, "password": "weak"}), "password")
	wantInvalid(t, api.Call(http.MethodPost, "/v1/users/resetpassword", actiontest.Args{"password": newPassword}), "token")
	res := api.Call(http.MethodPost, "/v1/users/resetpassword", actiontest.Args{"token": token, "password": newPassword}).WantOK(t)
	if c := res.Cookie("jwt-user-device"); c == nil || c.Value == "" || res.Cookie("jwt-user-refresh") != nil {
		t.Errorf("the reset set cookies %v, want the device cookie alone", res.Cookies)
	}
	wantError(t, api.Call(http.MethodPost, "/v1/users/resetpassword", actiontest.Args{"token": token, "password": newPassword}),
		reset.Spec(), http.StatusBadRequest, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")

	noMail := env.NewService(t, accounts.Users)
	noMail.Mail = nil
	api = newAPI(t)
	framework.Register(api.Framework, &v1.RequestPasswordReset{Credentials: noMail.Credentials})
	wantError(t, api.Call(http.MethodPost, "/v1/users/requestpasswordreset", actiontest.Args{"email": acc.Email}),
		request.Spec(), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
}

// TestEmailVerification runs V1RequestEmailVerification and V1VerifyEmail
// on the real engine: the caller's request queues a mail; its token
// answers the user verified; a used token is its own code; an anonymous
// request is refused, and without mail it is 503.
func TestEmailVerification(t *testing.T) {
	env, api := newEnv(t)
	request := &v1.RequestEmailVerification{Credentials: env.Users.Credentials}
	verify := &v1.VerifyEmail{Credentials: env.Users.Credentials}
	framework.Register(api.Framework, request)
	framework.Register(api.Framework, verify)
	acc, iss := env.Users.LoggedIn(t, action.Web)
	api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v1/users/requestemailverification", nil).WantOK(t)
	mails := env.Mails(t, acc.Email)
	if len(mails) != 1 {
		t.Fatalf("%d mails, want 1", len(mails))
	}
	token := accountstest.TokenOf(t, mails[0])
	res := api.Call(http.MethodPost, "/v1/users/verifyemail", actiontest.Args{"token": token}).WantOK(t)
	if u := obj(res, "user"); u["id"] != acc.ID.String() || u["emailVerifiedAt"] == nil {
		t.Errorf("verification answered %s", res.Raw)
	}
	wantError(t, api.Call(http.MethodPost, "/v1/users/verifyemail", actiontest.Args{"token": token}), verify.Spec(),
		http.StatusBadRequest, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
	wantInvalid(t, api.Call(http.MethodPost, "/v1/users/verifyemail", nil), "token")
	wantError(t, api.Call(http.MethodPost, "/v1/users/requestemailverification", nil), request.Spec(),
		http.StatusUnauthorized, "UNAUTHORIZED")

	noMail := env.NewService(t, accounts.Users)
	noMail.Mail = nil
	api = newAPI(t)
	framework.Register(api.Framework, &v1.RequestEmailVerification{Credentials: noMail.Credentials})
	wantError(t, api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v1/users/requestemailverification", nil), request.Spec(),
		http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
}
