package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// Exchange trades a sign-in's one-time result code for its login, through
// the completion step of every login: it opens the session, or answers
// *MFARequiredError when the user has a second factor (the code is spent
// either way). The client must be the one that started the flow: a
// browser's flow is bound to it, and binding (its oidc-flow cookie) must
// be the flow's, so that a code taken from someone else's flow and slipped
// into a victim's page cannot sign the victim into that account; a flow
// given a PKCE challenge needs its verifier. An unknown, spent or expired
// code, another client, another browser or a wrong verifier (the last two
// spend the code) is ErrInvalidOIDCCode.
func (f *Federation) Exchange(ctx context.Context, raw, verifier, binding string, o Origin) (*Issued, error) {
	if !hex64.MatchString(raw) {
		return nil, ErrInvalidOIDCCode
	}
	flow, err := f.Flows.ByResult(ctx, f.Users.DB, sha256Hex(raw))
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrInvalidOIDCCode
	}
	if err != nil {
		return nil, err
	}
	now := f.Users.Now()
	if flow.Client != string(o.Client) || flow.ResultUsedAt != nil || !flow.ResultExpiresAt.After(now) {
		return nil, ErrInvalidOIDCCode
	}
	if !boundHere(flow.BindingHash, binding) ||
		(flow.CodeChallenge != nil && !sameHash(*flow.CodeChallenge, s256(verifier))) {
		// One guess per code: another browser or a wrong verifier spends it.
		if _, err := f.Flows.Spend(ctx, f.Users.DB, flow.ID, now); err != nil {
			return nil, err
		}
		return nil, ErrInvalidOIDCCode
	}
	event := models.EventLogin
	if *flow.ResultEvent == models.FlowRegister {
		event = models.EventRegister
	}
	s := f.Users
	return s.complete(ctx, firstFactor{
		method: models.MethodFederated, provider: flow.Provider, level: 1, origin: o, event: event,
		// The owner is locked before its flow row, the order of every
		// other transaction that touches both (a password reset spends the
		// owner's pending results under its lock): the other order could
		// deadlock with it.
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			acc, err := s.lockActive(ctx, tx, *flow.ResultUserID)
			if err != nil {
				return nil, err
			}
			ok, err := f.Flows.Spend(ctx, tx, flow.ID, s.Now())
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, ErrInvalidOIDCCode // spent or expired meanwhile
			}
			return acc, nil
		},
	})
}

// s256 is the PKCE S256 challenge of verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
