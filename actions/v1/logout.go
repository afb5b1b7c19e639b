package v1

import (
	"context"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
)

// Logout ends the caller's current session: the one its access token
// belongs to (its sid), and the one of a presented refresh token when that
// is another session of the caller.
type Logout struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// LogoutArgs are the arguments of Logout.
type LogoutArgs struct {
	RefreshToken string `arg:"refreshToken,lenient,secret,allownul"`
}

// Spec declares V1Logout (V1AdminLogout for admins).
func (a *Logout) Spec() action.Spec {
	s := specFor(a.Accounts.Kind, "Logout", "logout")
	s.Summary = "End the current session"
	s.Auth = action.Owner(a.Accounts.Kind.Type)
	s.SameSite = true // reads and clears the refresh cookie
	return s
}

// Run ends the session and clears the cookie. A missing, unknown or
// foreign refresh token is ignored: the answer is 200 all the same.
func (a *Logout) Run(ctx context.Context, req *action.Request, in *LogoutArgs) (*Empty, error) {
	raw := refreshTokenOf(a.Accounts.Kind, a.Cookies, req, in.RefreshToken)
	if err := a.Accounts.Logout(ctx, req.Caller.ID, req.Caller.SessionID, raw, Origin(req)); err != nil {
		return nil, err
	}
	a.Cookies.Clear(req, a.Accounts.Kind.Type)
	return &Empty{}, nil
}

// LogoutAll ends every session of the caller and every access token issued
// to it, by incrementing its token version.
type LogoutAll struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// Spec declares V1LogoutAll (V1AdminLogoutAll for admins).
func (a *LogoutAll) Spec() action.Spec {
	s := specFor(a.Accounts.Kind, "LogoutAll", "logoutall")
	s.Summary = "End every session"
	s.Auth = action.Owner(a.Accounts.Kind.Type)
	s.SameSite = true // clears the refresh cookie
	return s
}

// Run ends every session and clears the cookie.
func (a *LogoutAll) Run(ctx context.Context, req *action.Request, _ *struct{}) (*Empty, error) {
	if err := a.Accounts.LogoutAll(ctx, req.Caller.ID, req.Caller.SessionID, Origin(req), nil); err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	a.Cookies.Clear(req, a.Accounts.Kind.Type)
	return &Empty{}, nil
}
