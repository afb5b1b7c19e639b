package v1

import (
	"context"
	"net/http"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Login authenticates by e-mail and password and opens a session whose
// client (and so the access token's audience) comes from X-Client.
type Login struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// LoginArgs are the arguments of Login. The password is used exactly as
// given; its length is capped only to bound the work an attacker can ask.
// DeviceToken is an app's device value from an earlier login (a browser
// sends its device cookie instead); one that is not a device value counts
// as none.
type LoginArgs struct {
	Email       string `arg:"email" mod:"trim,lower" validate:"required,email,max=254"`
	Password    string `arg:"password,secret" validate:"required,max=1024"`
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1Login (V1AdminLogin for admins).
func (a *Login) Spec() action.Spec {
	c := a.Accounts.Kind.Codes
	s := specFor(a.Accounts.Kind, "Login", "login")
	s.Summary = "Log in with e-mail and password"
	s.Auth = action.LoggedOut(a.Accounts.Kind.Type)
	s.Status = http.StatusCreated
	s.Errors = []errorcodes.Code{c.InvalidCredentials, c.AccountInactive, c.AccountDeleted, c.SecondFactor.MFARequired,
		errorcodes.ServiceBusy, errorcodes.TooManyRequests}
	if a.Accounts.Kind.Type == accounts.Users.Type {
		s.Errors = append(s.Errors, accounts.UserEmailNotVerified)
	}
	s.RateClass = action.RatePassword
	s.SameSite = true
	return s
}

// Run logs in, or answers MFA_REQUIRED (no cookie, no token) when the
// owner has a second factor: V1MFAVerify then completes the login.
func (a *Login) Run(ctx context.Context, req *action.Request, in *LoginArgs) (*SessionResult, error) {
	iss, err := a.Accounts.Login(ctx, in.Email, in.Password, OriginWithDevice(a.Accounts.Kind, a.Cookies, req, in.DeviceToken))
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return LoginAnswer(a.Accounts.Kind, a.Cookies, req, iss), nil
}
