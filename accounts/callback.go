package accounts

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/url"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/federation"
	"github.com/actionkit/actionkit/models"
)

// CallbackIn is what the provider sent back, with what the browser holds.
type CallbackIn struct {
	State, Code, Issuer, Error string
	// Binding is the browser's oidc-flow cookie ("" when it sent none).
	Binding string
	// Locale is the request's locale, that of a user the flow creates.
	Locale string
	Origin Origin
}

// Landing is the outcome of a callback for a known flow: where to send
// the browser, with the fragment saying what happened.
type Landing struct {
	URL string
	// Err is the failure the fragment reports, nil on success.
	Err error
}

// flowFailure is a callback's failure: the error the fragment reports
// and the reason recorded in identity_login_failed.
type flowFailure struct {
	err    error
	reason string
}

func (e *flowFailure) Error() string { return e.err.Error() }
func (e *flowFailure) Unwrap() error { return e.err }

func fail(err error, reason string) error { return &flowFailure{err: err, reason: reason} }

// Callback finishes the provider's part of a flow. Its checks run in this
// order: the state names a flow whose place to return to is still allowed
// (else ErrInvalidOIDCState or ErrInvalidRedirect, answered without a
// redirect); the flow is unused, unexpired and bound to this browser (else
// the fragment says ErrInvalidOIDCState); the provider sent no error and,
// when it names itself, is the flow's issuer; the code is redeemed with
// the flow's PKCE verifier and the ID token verifies, nonce included (else
// ErrOIDCProvider). Then the linking policy decides.
func (f *Federation) Callback(ctx context.Context, in CallbackIn) (*Landing, error) {
	if !hex64.MatchString(in.State) {
		return nil, ErrInvalidOIDCState
	}
	flow, err := f.Flows.ByState(ctx, f.Users.DB, sha256Hex(in.State))
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrInvalidOIDCState
	}
	if err != nil {
		return nil, err
	}
	if !f.mayReturnTo(action.Client(flow.Client), flow.RedirectTo) {
		return nil, ErrInvalidRedirect
	}
	fragment, err := f.land(ctx, flow, in)
	if err == nil {
		return &Landing{URL: flow.RedirectTo + "#" + fragment}, nil
	}
	var failure *flowFailure
	if !errors.As(err, &failure) {
		return nil, err
	}
	f.Users.Log.Info("identity provider sign-in failed", "provider", flow.Provider, "flowId", flow.ID.String(),
		"reason", failure.reason, "error", err.Error())
	code := failure.err
	return &Landing{URL: flow.RedirectTo + "#error=" + url.QueryEscape(errorName(code)), Err: code}, nil
}

// land runs the checks of a known flow and its policy, and returns the
// fragment of a success: oidc=<result code>, or linked=<provider>.
func (f *Federation) land(ctx context.Context, flow *models.Flow, in CallbackIn) (string, error) {
	if err := f.claim(ctx, flow, in.Binding); err != nil {
		return "", err
	}
	id, err := f.identify(ctx, flow, in)
	if err != nil {
		f.linkFailed(ctx, flow, err, in.Origin)
		return "", err
	}
	return f.decide(ctx, flow, id, in)
}

// claim checks that the flow is bound to this browser (when it is bound)
// and uses it: a state is good for one callback, before the flow expires.
func (f *Federation) claim(ctx context.Context, flow *models.Flow, binding string) error {
	if !boundHere(flow.BindingHash, binding) {
		return fail(ErrInvalidOIDCState, "browser_mismatch")
	}
	ok, err := f.Flows.Use(ctx, f.Users.DB, flow.ID, f.Users.Now())
	if err != nil {
		return err
	}
	if !ok {
		return fail(ErrInvalidOIDCState, "state_used_or_expired")
	}
	return nil
}

// identify checks the provider's answer and redeems its code: the
// identity of its verified ID token, whose nonce is the flow's.
func (f *Federation) identify(ctx context.Context, flow *models.Flow, in CallbackIn) (*federation.Identity, error) {
	p, ok := f.Providers.Provider(flow.Provider)
	switch {
	case !ok:
		return nil, fail(ErrOIDCProvider, "provider_removed")
	case in.Error != "":
		return nil, fail(ErrOIDCProvider, "provider_error")
	case in.Issuer != "" && in.Issuer != p.Issuer:
		return nil, fail(ErrOIDCProvider, "issuer_mismatch")
	case in.Code == "":
		return nil, fail(ErrOIDCProvider, "no_code")
	}
	verifier, err := f.Key.Open(flow.VerifierCiphertext, flow.VerifierNonce, verifierContext(flow.ID))
	if err != nil {
		return nil, err // a wrong DATA_ENCRYPTION_KEY: an internal error, not the provider's
	}
	id, err := f.Providers.Exchange(ctx, flow.Provider, in.Code, string(verifier), in.Issuer)
	if errors.Is(err, federation.ErrNoIssuer) {
		return nil, fail(ErrOIDCProvider, "no_issuer")
	}
	if err != nil {
		f.Users.Log.Warn("identity provider answer refused", "provider", flow.Provider, "error", err.Error())
		return nil, fail(ErrOIDCProvider, "token_rejected")
	}
	if !sameHash(flow.NonceHash, sha256Hex(id.Nonce)) {
		return nil, fail(ErrOIDCProvider, "nonce_mismatch")
	}
	if len(id.Subject) > 255 {
		return nil, fail(ErrOIDCProvider, "subject_too_long")
	}
	return id, nil
}

// linkFailed records a failed link flow in its user's security log: the
// user asked for the change, and should see that it did not happen.
func (f *Federation) linkFailed(ctx context.Context, flow *models.Flow, err error, o Origin) {
	var failure *flowFailure
	if flow.LinkUserID == nil || !errors.As(err, &failure) {
		return
	}
	f.recordFailure(ctx, *flow.LinkUserID, flow.Provider, failure.reason, o)
}

// recordFailure writes identity_login_failed for user, on its own: a
// refusal changes nothing else.
func (f *Federation) recordFailure(ctx context.Context, user uuid.UUID, provider, reason string, o Origin) {
	data := map[string]any{"provider": provider, "reason": reason}
	if err := f.Users.record(ctx, f.Users.DB, models.EventIdentityLoginFailed, user, uuid.Nil, o, data); err != nil {
		f.Users.Log.Warn("identity_login_failed not recorded", "ownerId", user.String(), "error", err.Error())
	}
}

// sha256Hex is the lowercase hex SHA-256 of s: how the flows store what
// they hand out.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sameHash compares two hashes in constant time.
func sameHash(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
