package v1

import (
	"errors"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
)

// AccountError maps the engine's failures to kind's error codes. Anything
// else is returned unchanged and becomes INTERNAL_SERVER_ERROR.
func AccountError(kind accounts.Kind, err error) error {
	c := kind.Codes
	var slowed *accounts.SlowedDownError
	var limited *accounts.LimitedError
	if e := secondFactorError(kind, err); e != nil {
		return e
	}
	if e := passkeyError(kind, err); e != nil {
		return e
	}
	switch {
	case errors.Is(err, accounts.ErrInvalidCredentials):
		return c.InvalidCredentials.New()
	case errors.Is(err, accounts.ErrInactive):
		return c.AccountInactive.New()
	case errors.Is(err, accounts.ErrDeleted):
		return c.AccountDeleted.New()
	case errors.Is(err, accounts.ErrNotFound):
		return c.AccountNotFound.New()
	case errors.Is(err, accounts.ErrInvalidRefresh):
		return c.InvalidRefresh.New()
	case errors.Is(err, accounts.ErrExists) && c.AlreadyExists != "":
		return c.AlreadyExists.New()
	case errors.As(err, &slowed):
		return tooManyRequests(slowed.RetryAfter)
	case errors.As(err, &limited):
		return tooManyRequests(limited.RetryAfter)
	case errors.Is(err, accounts.ErrNotVerified):
		return accounts.UserEmailNotVerified.New()
	case errors.Is(err, accounts.ErrSessionEnded):
		return errorcodes.Unauthorized.New()
	case errors.Is(err, accounts.ErrInvalidCursor):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"cursor": {Code: "invalid", Message: "is not a cursor of this listing"},
		})
	case errors.Is(err, auth.ErrBusy):
		e := errorcodes.ServiceBusy.New()
		e.RetryAfter = time.Second
		return e
	}
	return err
}

// tooManyRequests is 429 TOO_MANY_REQUESTS with a Retry-After of at least
// a second.
func tooManyRequests(retry time.Duration) error {
	e := errorcodes.TooManyRequests.New()
	e.RetryAfter = max(retry, time.Second)
	return e
}

// Origin describes the request a session is opened from.
func Origin(req *action.Request) accounts.Origin {
	return accounts.Origin{Client: req.Client, Platform: req.Platform, IP: req.IP, UserAgent: req.UserAgent}
}

// MFARequiredDetails are the members MFA_REQUIRED adds to its error body:
// the handle of the login's second step, the second factors the owner can
// use, and the handle's lifetime in seconds.
type MFARequiredDetails struct {
	MFAToken  string   `json:"mfaToken"`
	Methods   []string `json:"methods"`
	ExpiresIn int      `json:"expiresIn"`
}

// ReauthDetails are the members REAUTHENTICATION_REQUIRED adds to its
// error body: how the caller can re-authenticate now (password, totp,
// recovery_code, webauthn).
type ReauthDetails struct {
	Methods []string `json:"methods"`
}

// secondFactorError maps the second factor's failures to kind's codes,
// or returns nil.
func secondFactorError(kind accounts.Kind, err error) *errorcodes.Error {
	c := kind.Codes.SecondFactor
	var required *accounts.MFARequiredError
	switch {
	case errors.As(err, &required):
		e := c.MFARequired.New()
		e.Details = MFARequiredDetails{MFAToken: required.Token, Methods: required.Methods, ExpiresIn: int(required.ExpiresIn / time.Second)}
		return e
	case errors.Is(err, accounts.ErrInvalidMFAToken):
		return c.InvalidMFAToken.New()
	case errors.Is(err, accounts.ErrInvalidTOTPCode):
		return c.InvalidTOTPCode.New()
	case errors.Is(err, accounts.ErrInvalidRecoveryCode):
		return c.InvalidRecoveryCode.New()
	case errors.Is(err, accounts.ErrInvalidWebAuthnResponse):
		return c.InvalidWebAuthnResponse.New()
	case errors.Is(err, accounts.ErrTOTPEnabled):
		return c.TOTPAlreadyEnabled.New()
	case errors.Is(err, accounts.ErrTOTPNotPending):
		return c.TOTPNotPending.New()
	case errors.Is(err, accounts.ErrMFANotEnabled):
		return c.MFANotEnabled.New()
	case errors.Is(err, accounts.ErrTooManyMFAFailures):
		// No Retry-After: the stop lasts until a password reset or an
		// admin's resetmfa, not for a time.
		return c.TooManyFailures.New()
	}
	return nil
}

// passkeyError maps the failures of passkeys to kind's codes, or returns
// nil.
func passkeyError(kind accounts.Kind, err error) *errorcodes.Error {
	c := kind.Codes.Passkey
	switch {
	case errors.Is(err, accounts.ErrMalformedCredential):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"credential": {Code: "webauthn_credential",
				Message: "must be the credential's JSON object, as PublicKeyCredential.toJSON() gives it (binary members in base64url)"},
		})
	case errors.Is(err, accounts.ErrPasskeysUnavailable):
		return errorcodes.ServiceUnavailable.New()
	case errors.Is(err, accounts.ErrInvalidWebAuthnChallenge):
		return c.InvalidChallenge.New()
	case errors.Is(err, accounts.ErrInvalidPasskeyCredentials):
		return c.InvalidCredentials.New()
	case errors.Is(err, accounts.ErrPasskeyNotFound):
		return c.NotFound.New()
	case errors.Is(err, accounts.ErrLastSignInMethod):
		return c.LastSignInMethod.New()
	}
	return nil
}
