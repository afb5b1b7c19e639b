package v1

import (
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
)

// SessionAnswer builds the answer of register, login, refresh and password
// change, and sets the refresh cookie and, when the flow authenticated the
// client, the device cookie. The raw refresh token goes in the body only
// for app sessions.
func SessionAnswer(kind accounts.Kind, cookies Cookies, req *action.Request, iss *accounts.Issued) *SessionResult {
	cookies.Set(req, kind.Type, iss.RefreshToken)
	if iss.Device != "" {
		cookies.SetDevice(req, kind.Type, iss.Device)
	}
	out := &SessionResult{Token: iss.AccessToken}
	if iss.Session.Client == string(action.App) {
		out.RefreshToken = iss.RefreshToken
	}
	if kind.Type == accounts.Admins.Type {
		out.Admin = ViewAccount(iss.Account)
	} else {
		out.User = ViewAccount(iss.Account)
	}
	return out
}

// LoginAnswer is SessionAnswer for a login (register and login of every
// version): an app session also finds its device value in the body, as
// deviceToken, to send back with its next logins.
func LoginAnswer(kind accounts.Kind, cookies Cookies, req *action.Request, iss *accounts.Issued) *SessionResult {
	out := SessionAnswer(kind, cookies, req, iss)
	if iss.Session.Client == string(action.App) {
		out.DeviceToken = iss.Device
	}
	return out
}

// OriginWithDevice is Origin with the device value the client presented:
// its device cookie, else the deviceToken argument (apps).
func OriginWithDevice(kind accounts.Kind, cookies Cookies, req *action.Request, arg string) accounts.Origin {
	o := Origin(req)
	o.Device = arg
	if v, ok := cookies.ReadDevice(req, kind.Type); ok && v != "" {
		o.Device = v
	}
	return o
}

// specFor names an account action of svc's kind: verb "Login" becomes
// V1Login at /v1/users/login, or V1AdminLogin at /v1/admins/login.
func specFor(kind accounts.Kind, verb, path string) action.Spec {
	return action.Spec{
		Name: "V1" + kind.Title + verb,
		Path: "/v1/" + kind.Plural + "/" + path,
	}
}

// refreshTokenOf reads the refresh token: the cookie first, then the
// argument (mobile clients).
func refreshTokenOf(kind accounts.Kind, cookies Cookies, req *action.Request, arg string) string {
	if v, ok := cookies.Read(req, kind.Type); ok && v != "" {
		return v
	}
	return arg
}

// LoginSession describes the session a login opened, in V2Login's answer
// (and in the second step of a V2Login).
type LoginSession struct {
	ID        uuid.UUID `json:"id"`
	ExpiresAt time.Time `json:"expiresAt"`
	Client    string    `json:"client"`
	Platform  string    `json:"platform"`
}

// LoginSessionOf describes the session of iss.
func LoginSessionOf(iss *accounts.Issued) *LoginSession {
	return &LoginSession{ID: iss.Session.SessionID, ExpiresAt: iss.Session.ExpiresAt,
		Client: iss.Session.Client, Platform: iss.Session.Platform}
}
