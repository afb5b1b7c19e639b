package v1

import (
	"context"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// MFAWebAuthnOptions starts a login's second step with a passkey: the
// options of navigator.credentials.get() listing the owner's passkeys.
// Their answer goes to V1MFAVerify with method webauthn.
type MFAWebAuthnOptions struct {
	Accounts *accounts.Service
	// ClientBudget is as in PasskeyLoginOptions, for the client's budget
	// of second-step options.
	ClientBudget func(ctx context.Context, req *action.Request) time.Duration
}

// MFATokenArgs name a login's second step.
type MFATokenArgs struct {
	MFAToken string `arg:"mfaToken,secret" validate:"required,max=1024"`
}

// Spec declares V1MFAWebAuthnOptions (V1AdminMFAWebAuthnOptions).
func (a *MFAWebAuthnOptions) Spec() action.Spec {
	k := a.Accounts.Kind
	s := specFor(k, "MFAWebAuthnOptions", "mfa/webauthnoptions")
	s.Summary = "Start a login's second step with a passkey"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{k.Codes.SecondFactor.InvalidMFAToken, k.Codes.SecondFactor.InvalidWebAuthnResponse,
		errorcodes.ServiceUnavailable, errorcodes.TooManyRequests}
	return s
}

// Run makes the options, within the client's budget.
func (a *MFAWebAuthnOptions) Run(ctx context.Context, req *action.Request, in *MFATokenArgs) (*WebAuthnOptionsResult, error) {
	if err := spendOptions(ctx, req, a.ClientBudget); err != nil {
		return nil, err
	}
	o, err := a.Accounts.SecondFactorOptions(ctx, in.MFAToken)
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return optionsResult(o), nil
}

// ReauthenticateOptions starts a re-authentication with a passkey: the
// options of navigator.credentials.get() listing the caller's passkeys.
// Their answer goes to V1Reauthenticate with method webauthn.
type ReauthenticateOptions struct {
	Accounts *accounts.Service
}

// Spec declares V1ReauthenticateOptions (V1AdminReauthenticateOptions).
func (a *ReauthenticateOptions) Spec() action.Spec {
	k := a.Accounts.Kind
	s := specFor(k, "ReauthenticateOptions", "reauthenticateoptions")
	s.Summary = "Start a re-authentication with a passkey"
	s.Auth = action.Owner(k.Type)
	s.Errors = []errorcodes.Code{k.Codes.SecondFactor.InvalidWebAuthnResponse, errorcodes.ServiceUnavailable}
	return s
}

// Run makes the options.
func (a *ReauthenticateOptions) Run(ctx context.Context, req *action.Request, _ *struct{}) (*WebAuthnOptionsResult, error) {
	o, err := a.Accounts.ReauthOptions(ctx, req.Caller.ID, req.Caller.Session)
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return optionsResult(o), nil
}

// spendOptions spends one unit of the client's options budget through
// budget (nil: none), and answers 429 when it was already spent.
func spendOptions(ctx context.Context, req *action.Request, budget func(context.Context, *action.Request) time.Duration) error {
	if budget == nil {
		return nil
	}
	if wait := budget(ctx, req); wait > 0 {
		return tooManyRequests(wait)
	}
	return nil
}
