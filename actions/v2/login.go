package v2

import (
	"context"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/errorcodes"
)

// Login is V1Login plus what a client needs to manage its session without
// decoding tokens: the session's id and expiry and the access token's
// expiry.
type Login struct {
	Accounts *accounts.Service
	Cookies  v1.Cookies
}

// SessionView describes the session a login opened.
type SessionView = v1.LoginSession

// LoginResult is V1Login's answer with the session and the access token's
// expiry beside it.
type LoginResult struct {
	v1.SessionResult
	TokenExpiresAt time.Time    `json:"tokenExpiresAt"`
	Session        *SessionView `json:"session"`
}

// Spec declares V2Login (V2AdminLogin for admins).
func (a *Login) Spec() action.Spec {
	c := a.Accounts.Kind.Codes
	errs := []errorcodes.Code{c.InvalidCredentials, c.AccountInactive, c.AccountDeleted, c.SecondFactor.MFARequired,
		errorcodes.ServiceBusy, errorcodes.TooManyRequests}
	if a.Accounts.Kind.Type == accounts.Users.Type {
		errs = append(errs, accounts.UserEmailNotVerified)
	}
	return action.Spec{
		Name:    "V2" + a.Accounts.Kind.Title + "Login",
		Path:    "/v2/" + a.Accounts.Kind.Plural + "/login",
		Summary: "Log in; the answer also describes the session and the token's expiry",
		Auth:    action.LoggedOut(a.Accounts.Kind.Type),
		Status:  http.StatusCreated,
		Errors:  errs,
		// One budget with V1Login: a new version is no new allowance.
		RateClass: action.RatePassword,
		SameSite:  true,
	}
}

// Run logs in, exactly as V1Login does. When the owner owes a second
// factor, V1MFAVerify completes the login with this action's answer.
func (a *Login) Run(ctx context.Context, req *action.Request, in *v1.LoginArgs) (*LoginResult, error) {
	o := v1.OriginWithDevice(a.Accounts.Kind, a.Cookies, req, in.DeviceToken)
	o.Version = 2
	iss, err := a.Accounts.Login(ctx, in.Email, in.Password, o)
	if err != nil {
		return nil, v1.AccountError(a.Accounts.Kind, err)
	}
	return &LoginResult{
		SessionResult:  *v1.LoginAnswer(a.Accounts.Kind, a.Cookies, req, iss),
		TokenExpiresAt: iss.AccessExpiresAt,
		Session:        v1.LoginSessionOf(iss),
	}, nil
}
