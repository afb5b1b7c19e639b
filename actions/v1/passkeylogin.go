package v1

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// PasskeyLoginOptions starts a passwordless login: the options of
// navigator.credentials.get() with no allowCredentials, so that the
// browser offers any passkey of this site (also in the autofill of a
// sign-in field, with conditional mediation).
type PasskeyLoginOptions struct {
	Accounts *accounts.Service
	// ClientBudget, when set, spends one unit of the client's budget of
	// login options and returns how long the client must wait when it
	// was already spent (zero: not spent): each call writes a challenge.
	ClientBudget func(ctx context.Context, req *action.Request) time.Duration
}

// Spec declares V1PasskeyLoginOptions (V1AdminPasskeyLoginOptions).
func (a *PasskeyLoginOptions) Spec() action.Spec {
	s := specFor(a.Accounts.Kind, "PasskeyLoginOptions", "passkeys/loginoptions")
	s.Summary = "Start a passwordless login: the options of navigator.credentials.get()"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{errorcodes.ServiceUnavailable, errorcodes.TooManyRequests}
	return s
}

// Run makes the options, within the client's budget.
func (a *PasskeyLoginOptions) Run(ctx context.Context, req *action.Request, _ *struct{}) (*WebAuthnOptionsResult, error) {
	if err := spendOptions(ctx, req, a.ClientBudget); err != nil {
		return nil, err
	}
	o, err := a.Accounts.PasskeyLoginOptions(ctx)
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return optionsResult(o), nil
}

// PasskeyLogin logs in with a passkey: it answers as V1Login does, and the
// session is at level 2 with the method hwk. A passkey login never owes
// another factor.
type PasskeyLogin struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// PasskeyLoginArgs are the arguments of PasskeyLogin: the ceremony and the
// assertion's JSON (PublicKeyCredential.toJSON()), and an app's device
// value as in LoginArgs.
type PasskeyLoginArgs struct {
	ChallengeID string          `arg:"challengeId" validate:"required,max=64"`
	Credential  json.RawMessage `arg:"credential,secret" validate:"required"`
	DeviceToken string          `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1PasskeyLogin (V1AdminPasskeyLogin for admins).
func (a *PasskeyLogin) Spec() action.Spec {
	k := a.Accounts.Kind
	c := k.Codes
	s := specFor(k, "PasskeyLogin", "passkeys/login")
	s.Summary = "Log in with a passkey"
	s.Auth = action.LoggedOut(k.Type)
	s.Status = http.StatusCreated
	s.Errors = []errorcodes.Code{c.Passkey.InvalidCredentials, c.Passkey.InvalidChallenge, c.AccountInactive, c.AccountDeleted,
		errorcodes.ServiceUnavailable, errorcodes.TooManyRequests}
	if k.Type == accounts.Users.Type {
		s.Errors = append(s.Errors, accounts.UserEmailNotVerified)
	}
	s.RateClass = action.RatePasskey
	s.SameSite = true // sets the refresh cookie
	return s
}

// Run logs in.
func (a *PasskeyLogin) Run(ctx context.Context, req *action.Request, in *PasskeyLoginArgs) (*SessionResult, error) {
	iss, err := a.Accounts.PasskeyLogin(ctx, in.ChallengeID, in.Credential, OriginWithDevice(a.Accounts.Kind, a.Cookies, req, in.DeviceToken))
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return LoginAnswer(a.Accounts.Kind, a.Cookies, req, iss), nil
}
