package v1

import (
	"context"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// The second factor of the caller (users and admins): /v1/users/mfa/...
// and /v1/admins/mfa/.... Every change is sensitive: the framework lets
// it run only in a session authenticated recently and, when the owner has
// a second factor, with it.

// mfaSpec names an action of the second factor: verb "TOTPEnroll" with
// path "totp/enroll" is V1TOTPEnroll at /v1/users/mfa/totp/enroll.
func mfaSpec(kind accounts.Kind, verb, path, summary string, errs ...errorcodes.Code) action.Spec {
	s := specFor(kind, verb, "mfa/"+path)
	s.Summary, s.Auth, s.Errors = summary, action.Owner(kind.Type), errs
	return s
}

// MFAStatus answers what the caller has of a second factor.
type MFAStatus struct {
	Factors *accounts.SecondFactors
}

// MFAStatusView is the second-factor status on the wire. Methods are the
// second factors usable now (totp, recovery_code, webauthn); Passkeys
// counts the passkeys.
type MFAStatusView struct {
	Enabled                bool       `json:"enabled"`
	Methods                []string   `json:"methods"`
	TOTPConfirmedAt        *time.Time `json:"totpConfirmedAt"`
	RecoveryCodesRemaining int        `json:"recoveryCodesRemaining"`
	Passkeys               int        `json:"passkeys"`
}

// MFAStatusResult is the answer of MFAStatus.
type MFAStatusResult struct {
	MFA MFAStatusView `json:"mfa"`
}

// Spec declares V1MFAStatus (V1AdminMFAStatus for admins).
func (a *MFAStatus) Spec() action.Spec {
	return mfaSpec(a.Factors.Engine.Kind, "MFAStatus", "status", "Read what you have of a second factor")
}

// Run answers the status.
func (a *MFAStatus) Run(ctx context.Context, req *action.Request, _ *struct{}) (*MFAStatusResult, error) {
	st, err := a.Factors.Status(ctx, req.Caller.ID)
	if err != nil {
		return nil, err
	}
	return &MFAStatusResult{MFA: MFAStatusView{Enabled: st.Enabled, Methods: st.Methods, TOTPConfirmedAt: st.TOTPConfirmedAt,
		RecoveryCodesRemaining: st.RecoveryCodesRemaining, Passkeys: st.Passkeys}}, nil
}

// TOTPEnroll starts setting up an authenticator app: a new pending secret,
// shown once (it replaces an earlier pending one).
type TOTPEnroll struct {
	Factors *accounts.SecondFactors
}

// TOTPEnrollResult is the pending secret: in base32, as the otpauth URL,
// and as a QR code of that URL (a PNG data URL) that a page can show as it
// is, with no script of its own and no third party seeing the secret.
type TOTPEnrollResult struct {
	Secret      string `json:"secret"`
	OtpauthURL  string `json:"otpauthUrl"`
	QRCode      string `json:"qrCode"`
	Issuer      string `json:"issuer"`
	AccountName string `json:"accountName"`
	Digits      int    `json:"digits"`
	Period      int    `json:"period"`
	Algorithm   string `json:"algorithm"`
}

// Spec declares V1TOTPEnroll.
func (a *TOTPEnroll) Spec() action.Spec {
	s := mfaSpec(a.Factors.Engine.Kind, "TOTPEnroll", "totp/enroll",
		"Start setting up an authenticator app: a pending secret, its otpauth URL, and qrCode, a PNG data URL of a QR code of that URL",
		a.Factors.Engine.Kind.Codes.SecondFactor.TOTPAlreadyEnabled)
	s.Reauth = action.ReauthFactor
	return s
}

// Run makes the pending secret.
func (a *TOTPEnroll) Run(ctx context.Context, req *action.Request, _ *struct{}) (*TOTPEnrollResult, error) {
	e, err := a.Factors.EnrollTOTP(ctx, req.Caller.ID)
	if err != nil {
		return nil, AccountError(a.Factors.Engine.Kind, err)
	}
	qrCode, err := qrDataURL(e.URL)
	if err != nil {
		return nil, err // the URL is short and well formed: a bug, a logged 500
	}
	return &TOTPEnrollResult{Secret: e.Secret, OtpauthURL: e.URL, QRCode: qrCode, Issuer: e.Issuer, AccountName: e.AccountName,
		Digits: e.Digits, Period: e.Period, Algorithm: e.Algorithm}, nil
}

// TOTPConfirm finishes setting up the authenticator app with a code of it.
// Every other session ends, the caller's goes on with new tokens at level
// 2, and the recovery codes are shown once.
type TOTPConfirm struct {
	Factors *accounts.SecondFactors
	Cookies Cookies
}

// CodeArgs carry a code: a TOTP code, or for TOTPDisable a recovery code.
type CodeArgs struct {
	Code string `arg:"code,secret" validate:"required,max=64"`
}

// TOTPConfirmArgs carry a code of the new authenticator app and, for an
// app, the device value its earlier logins were given.
type TOTPConfirmArgs struct {
	Code        string `arg:"code,secret" validate:"required,max=64"`
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// TOTPConfirmResult is the caller's session's new tokens with the
// recovery codes (and, for an app, the device value to keep).
type TOTPConfirmResult struct {
	RecoveryCodes []string `json:"recoveryCodes"`
	SessionResult
}

// Spec declares V1TOTPConfirm.
func (a *TOTPConfirm) Spec() action.Spec {
	c := a.Factors.Engine.Kind.Codes.SecondFactor
	s := mfaSpec(a.Factors.Engine.Kind, "TOTPConfirm", "totp/confirm", "Confirm the authenticator app with a code; every other session ends",
		c.TOTPNotPending, c.InvalidTOTPCode)
	s.Reauth = action.ReauthFactor
	s.SameSite = true // sets the refresh cookie
	return s
}

// Run confirms the secret. The client, having proved the new factor, is
// trusted for second factors by the slow-down, by address and by its
// device value (the device cookie, or deviceToken for an app).
func (a *TOTPConfirm) Run(ctx context.Context, req *action.Request, in *TOTPConfirmArgs) (*TOTPConfirmResult, error) {
	kind := a.Factors.Engine.Kind
	c, err := a.Factors.ConfirmTOTP(ctx, req.Caller.ID, req.Caller.SessionID, in.Code, OriginWithDevice(kind, a.Cookies, req, in.DeviceToken))
	if err != nil {
		return nil, AccountError(kind, err)
	}
	return &TOTPConfirmResult{RecoveryCodes: c.RecoveryCodes, SessionResult: *LoginAnswer(kind, a.Cookies, req, c.Issued)}, nil
}

// TOTPDisable turns the authenticator app off, proven by one of its codes
// or a recovery code.
type TOTPDisable struct {
	Factors *accounts.SecondFactors
}

// Spec declares V1TOTPDisable.
func (a *TOTPDisable) Spec() action.Spec {
	c := a.Factors.Engine.Kind.Codes.SecondFactor
	s := mfaSpec(a.Factors.Engine.Kind, "TOTPDisable", "totp/disable", "Turn the authenticator app off", c.MFANotEnabled, c.InvalidTOTPCode,
		errorcodes.TooManyRequests, c.TooManyFailures)
	s.Reauth = action.ReauthFactor
	return s
}

// Run turns it off and answers the account as it now is.
func (a *TOTPDisable) Run(ctx context.Context, req *action.Request, in *CodeArgs) (*AccountResult, error) {
	acc, err := a.Factors.DisableTOTP(ctx, req.Caller.ID, in.Code, Origin(req))
	if err != nil {
		return nil, AccountError(a.Factors.Engine.Kind, err)
	}
	return accountResult(a.Factors.Engine.Kind, acc), nil
}

// RecoveryCodesRegenerate replaces the caller's recovery codes by a new
// set, shown once; the earlier set is void.
type RecoveryCodesRegenerate struct {
	Factors *accounts.SecondFactors
}

// RecoveryCodesResult is a new set of recovery codes.
type RecoveryCodesResult struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

// Spec declares V1RecoveryCodesRegenerate.
func (a *RecoveryCodesRegenerate) Spec() action.Spec {
	s := mfaSpec(a.Factors.Engine.Kind, "RecoveryCodesRegenerate", "recoverycodes/regenerate", "Replace your recovery codes",
		a.Factors.Engine.Kind.Codes.SecondFactor.MFANotEnabled)
	s.Reauth = action.ReauthFactor
	return s
}

// Run makes the new set.
func (a *RecoveryCodesRegenerate) Run(ctx context.Context, req *action.Request, _ *struct{}) (*RecoveryCodesResult, error) {
	codes, err := a.Factors.RegenerateRecoveryCodes(ctx, req.Caller.ID, Origin(req))
	if err != nil {
		return nil, AccountError(a.Factors.Engine.Kind, err)
	}
	return &RecoveryCodesResult{RecoveryCodes: codes}, nil
}
