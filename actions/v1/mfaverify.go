package v1

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// MFAVerify is a login's second step: the mfaToken of MFA_REQUIRED and a
// second factor. It answers exactly what the first step would have on
// success (V2Login's shape after a V2Login).
type MFAVerify struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// MFAVerifyArgs are the arguments of MFAVerify: the handle, the method and
// its code, or for a passkey (webauthn) the ceremony of
// V1MFAWebAuthnOptions and the assertion's JSON.
type MFAVerifyArgs struct {
	MFAToken    string          `arg:"mfaToken,secret" validate:"required,max=1024"`
	Method      string          `arg:"method" mod:"trim,lower" validate:"required,oneof=totp|recovery_code|webauthn"`
	Code        string          `arg:"code,secret" validate:"max=64"`
	ChallengeID string          `arg:"challengeId" validate:"max=64"`
	Credential  json.RawMessage `arg:"credential,secret"`
	// DeviceToken is as in LoginArgs: the login completes here.
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// MFAVerifyResult is the completed login: V1Login's answer, plus
// V2Login's session and token expiry when the first step was V2Login, and
// the recovery codes left when one was used.
type MFAVerifyResult struct {
	SessionResult
	TokenExpiresAt         *time.Time    `json:"tokenExpiresAt,omitempty"`
	Session                *LoginSession `json:"session,omitempty"`
	RecoveryCodesRemaining *int          `json:"recoveryCodesRemaining,omitempty"`
}

// Spec declares V1MFAVerify (V1AdminMFAVerify for admins).
func (a *MFAVerify) Spec() action.Spec {
	k := a.Accounts.Kind
	c := k.Codes.SecondFactor
	s := specFor(k, "MFAVerify", "mfa/verify")
	s.Summary = "Finish a login with a second factor"
	s.Auth = action.LoggedOut(k.Type)
	s.Status = http.StatusCreated
	s.Errors = []errorcodes.Code{c.InvalidMFAToken, c.InvalidTOTPCode, c.InvalidRecoveryCode, c.InvalidWebAuthnResponse,
		k.Codes.AccountInactive, errorcodes.TooManyRequests, c.TooManyFailures}
	s.RateClass = action.RateMFA
	s.SameSite = true // sets the refresh cookie
	return s
}

// Run completes the login.
func (a *MFAVerify) Run(ctx context.Context, req *action.Request, in *MFAVerifyArgs) (*MFAVerifyResult, error) {
	f := accounts.SecondFactor{Method: in.Method, Code: in.Code, ChallengeID: in.ChallengeID, Credential: in.Credential}
	iss, err := a.Accounts.Verify(ctx, in.MFAToken, f, OriginWithDevice(a.Accounts.Kind, a.Cookies, req, in.DeviceToken))
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	out := &MFAVerifyResult{SessionResult: *LoginAnswer(a.Accounts.Kind, a.Cookies, req, iss),
		RecoveryCodesRemaining: iss.RecoveryCodesRemaining}
	if iss.Version >= 2 {
		exp := iss.AccessExpiresAt
		out.TokenExpiresAt, out.Session = &exp, LoginSessionOf(iss)
	}
	return out, nil
}

// Reauthenticate proves again, in the caller's session, that the owner is
// there ("sudo mode"), with exactly one of: its password, or a method and
// its code (for webauthn: the ceremony of V1ReauthenticateOptions and the
// assertion). The session's authentication time becomes now; a second
// factor (a passkey included) also raises its level to 2.
type Reauthenticate struct {
	Accounts *accounts.Service
}

// ReauthenticateArgs are the arguments of Reauthenticate.
type ReauthenticateArgs struct {
	Password    string          `arg:"password,secret" validate:"max=1024"`
	Method      string          `arg:"method" mod:"trim,lower" validate:"oneof=totp|recovery_code|webauthn"`
	Code        string          `arg:"code,secret" validate:"max=64"`
	ChallengeID string          `arg:"challengeId" validate:"max=64"`
	Credential  json.RawMessage `arg:"credential,secret"`
}

// ReauthenticateResult is the caller's session as it now is.
type ReauthenticateResult struct {
	Session SessionView `json:"session"`
}

// Spec declares V1Reauthenticate (V1AdminReauthenticate for admins).
func (a *Reauthenticate) Spec() action.Spec {
	k := a.Accounts.Kind
	c := k.Codes.SecondFactor
	s := specFor(k, "Reauthenticate", "reauthenticate")
	s.Summary = "Confirm it is you, for the sensitive actions"
	s.Auth = action.Owner(k.Type)
	s.Errors = []errorcodes.Code{k.Codes.InvalidCurrentPassword, c.InvalidTOTPCode, c.InvalidRecoveryCode, c.InvalidWebAuthnResponse,
		errorcodes.ServiceBusy, errorcodes.TooManyRequests, c.TooManyFailures}
	s.RateClass = action.RateMFA
	return s
}

// Run re-authenticates.
func (a *Reauthenticate) Run(ctx context.Context, req *action.Request, in *ReauthenticateArgs) (*ReauthenticateResult, error) {
	var f *accounts.SecondFactor
	switch {
	case (in.Password == "") == (in.Method == ""):
		return nil, errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"password": {Code: "one_of_password_method", Message: "give exactly one of password and method"},
		})
	case in.Method != "":
		f = &accounts.SecondFactor{Method: in.Method, Code: in.Code, ChallengeID: in.ChallengeID, Credential: in.Credential}
	}
	sess, err := a.Accounts.Reauthenticate(ctx, req.Caller.ID, req.Caller.Session, in.Password, f, Origin(req))
	if err != nil {
		if f == nil && errors.Is(err, accounts.ErrInvalidCredentials) {
			return nil, a.Accounts.Kind.Codes.InvalidCurrentPassword.New()
		}
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return &ReauthenticateResult{Session: ViewSession(sess, req.Caller.Session)}, nil
}
