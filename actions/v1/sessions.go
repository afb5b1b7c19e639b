package v1

import (
	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
)

// SessionAnswer builds the answer of register, login and refresh and sets
// the refresh cookie. The raw refresh token goes in the body only for app
// sessions.
func SessionAnswer(svc *accounts.Service, cookies Cookies, req *action.Request, iss *accounts.Issued) *SessionResult {
	cookies.Set(req, svc.Kind.Type, iss.RefreshToken)
	out := &SessionResult{Token: iss.AccessToken}
	if iss.Session.Client == string(action.App) {
		out.RefreshToken = iss.RefreshToken
	}
	if svc.Kind.Type == accounts.Admins.Type {
		out.Admin = ViewAccount(iss.Account)
	} else {
		out.User = ViewAccount(iss.Account)
	}
	return out
}

// specFor names an account action of svc's kind: verb "Login" becomes
// V1Login at /v1/users/login, or V1AdminLogin at /v1/admins/login.
func specFor(svc *accounts.Service, verb, path string) action.Spec {
	return action.Spec{
		Name: "V1" + svc.Kind.Title + verb,
		Path: "/v1/" + svc.Kind.Plural + "/" + path,
	}
}

// refreshTokenOf reads the refresh token: the cookie first, then the
// argument (mobile clients).
func refreshTokenOf(svc *accounts.Service, req *action.Request, arg string) string {
	if v, ok := req.Cookie(svc.Kind.Type.RefreshCookie()); ok && v != "" {
		return v
	}
	return arg
}
