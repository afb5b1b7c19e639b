package v1_test

import (
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/posts"
)

// spec is what an action declares, as the contract names it.
type spec struct {
	action   interface{ Spec() action.Spec }
	name     string
	path     string
	auth     action.Auth
	rate     action.RateClass
	sameSite bool
	status   int
}

// declarations lists every v1 action as the server registers it, with
// its declaration.
func declarations() []spec {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	users := accounts.NewService(accounts.Users, nil, nil, nil, time.Hour, log)
	admins := accounts.NewService(accounts.Admins, nil, nil, nil, time.Hour, log)
	user, admin := action.Owner("user"), action.Owner("admin")
	userCreds, manage := &accounts.Credentials{Engine: users}, &accounts.Management{Engine: users}
	activity := &accounts.Activity{Engine: users}
	out := []spec{
		{&v1.Register{Accounts: users}, "V1Register", "/v1/users/register", action.LoggedOut("user"), action.RateRegister, true, http.StatusCreated},
		{&v1.Sessions{Activity: activity}, "V1Sessions", "/v1/users/sessions", user, "", false, 0},
		{&v1.RevokeSession{Activity: activity}, "V1RevokeSession", "/v1/users/revokesession", user, "", false, 0},
		{&v1.SecurityEvents{Activity: activity}, "V1SecurityEvents", "/v1/users/securityevents", user, "", false, 0},
		{&v1.RequestPasswordReset{Credentials: userCreds}, "V1RequestPasswordReset", "/v1/users/requestpasswordreset", action.Public, action.RateMail, false, 0},
		{&v1.ResetPassword{Credentials: userCreds}, "V1ResetPassword", "/v1/users/resetpassword", action.Public, action.RateToken, false, 0},
		{&v1.RequestEmailVerification{Credentials: userCreds}, "V1RequestEmailVerification", "/v1/users/requestemailverification", user, action.RateMail, false, 0},
		{&v1.VerifyEmail{Credentials: userCreds}, "V1VerifyEmail", "/v1/users/verifyemail", action.Public, action.RateToken, false, 0},
		{&v1.AdminListUsers{Users: manage}, "V1AdminListUsers", "/v1/admins/users/list", admin, "", false, 0},
		{&v1.AdminReadUser{Users: users}, "V1AdminReadUser", "/v1/admins/users/read", admin, "", false, 0},
		{&v1.AdminUserSessions{Users: activity}, "V1AdminUserSessions", "/v1/admins/users/sessions", admin, "", false, 0},
		{&v1.AdminUserEvents{Users: activity}, "V1AdminUserSecurityEvents", "/v1/admins/users/securityevents", admin, "", false, 0},
		{&v1.AdminRevokeUserSessions{Users: manage}, "V1AdminRevokeUserSessions", "/v1/admins/users/revokesessions", admin, "", false, 0},
		{&v1.CreatePost{Posts: &posts.Service{}}, "V1CreatePost", "/v1/posts/create", user, "", false, http.StatusCreated},
		{&v1.Publish{Posts: &posts.Service{}}, "V1Publish", "/v1/posts/publish", user, "", false, 0},
	}
	for _, change := range v1.UserChanges() {
		name := map[string]string{"deactivate": "V1AdminDeactivateUser", "activate": "V1AdminActivateUser",
			"delete": "V1AdminDeleteUser", "restore": "V1AdminRestoreUser"}[change]
		out = append(out, spec{&v1.AdminChangeUser{Users: manage, Change: change}, name, "/v1/admins/users/" + change, admin, "", false, 0})
	}
	for _, k := range []struct {
		svc           *accounts.Service
		title, plural string
	}{{users, "", "users"}, {admins, "Admin", "admins"}} {
		typ := k.svc.Kind.Type
		out = append(out,
			spec{&v1.Login{Accounts: k.svc}, "V1" + k.title + "Login", "/v1/" + k.plural + "/login", action.LoggedOut(typ), action.RatePassword, true, http.StatusCreated},
			spec{&v1.Refresh{Accounts: k.svc}, "V1" + k.title + "Refresh", "/v1/" + k.plural + "/refresh", action.Public, "", true, 0},
			spec{&v1.Logout{Accounts: k.svc}, "V1" + k.title + "Logout", "/v1/" + k.plural + "/logout", action.Owner(typ), "", true, 0},
			spec{&v1.LogoutAll{Accounts: k.svc}, "V1" + k.title + "LogoutAll", "/v1/" + k.plural + "/logoutall", action.Owner(typ), "", true, 0},
			spec{&v1.Read{Accounts: k.svc}, "V1" + k.title + "Read", "/v1/" + k.plural + "/read", action.Owner(typ), "", false, 0},
			spec{&v1.ChangePassword{Credentials: &accounts.Credentials{Engine: k.svc}}, "V1" + k.title + "ChangePassword", "/v1/" + k.plural + "/changepassword", action.Owner(typ), action.RatePassword, true, 0},
		)
	}
	return out
}

// TestDeclarations: every v1 action declares the name, path, access rule,
// credential class, same-site rule and success status the contract gives
// it, and only error codes the server knows (each engine's list, or the
// framework's).
func TestDeclarations(t *testing.T) {
	known := allCodes()
	for _, d := range declarations() {
		s := d.action.Spec()
		t.Run(d.name, func(t *testing.T) {
			if s.Name != d.name || s.Path != d.path || s.Auth != d.auth || s.RateClass != d.rate || s.SameSite != d.sameSite ||
				s.Status != d.status {
				t.Errorf("declared %s %s auth %+v, class %q, same-site %v, status %d; want %s %s auth %+v, class %q, same-site %v, status %d",
					s.Name, s.Path, s.Auth, s.RateClass, s.SameSite, s.Status, d.name, d.path, d.auth, d.rate, d.sameSite, d.status)
			}
			for _, c := range s.Errors {
				if !slices.Contains(known, c) {
					t.Errorf("declares %q, a code the server does not know", c)
				}
			}
		})
	}
}

// TestAdminChangeUserRefusesAnUnknownChange: a change that is none of
// UserChanges panics when it is declared (at registration), never later.
func TestAdminChangeUserRefusesAnUnknownChange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for the change \"purge\"")
		}
	}()
	(&v1.AdminChangeUser{Change: "purge"}).Spec()
}
