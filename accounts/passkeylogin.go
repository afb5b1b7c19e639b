package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// PasskeyLoginOptions starts a passwordless login: a discoverable
// credential of any owner of this kind (no allowCredentials, so a browser
// may also offer it in its autofill), user verification required.
func (pk *Passkeys) PasskeyLoginOptions(ctx context.Context) (*WebAuthnOptions, error) {
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	assertion, data, err := pk.WebAuthn.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, err
	}
	return pk.beginCeremony(ctx, models.Binding{Purpose: models.CeremonyLogin}, assertion.Response, data)
}

// PasskeyLogin finishes a passwordless login begun by
// PasskeyLoginOptions. The credential is looked up by its id first; every
// answer that does not verify, whatever the reason, is
// ErrInvalidPasskeyCredentials, and changes nothing but spend its
// challenge (a challenge id never issued for a login is
// ErrInvalidWebAuthnChallenge). Then the account's flags are checked as a
// password login checks them, and the login completes through the
// completion step, at level 2 (a user-verified passkey is two factors),
// owing no other factor.
func (pk *Passkeys) PasskeyLogin(ctx context.Context, challengeID string, credential json.RawMessage, o Origin) (*Issued, error) {
	car, err := decodeAssertion(credential)
	if err != nil {
		return nil, err
	}
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	a, err := pk.verifyPasskeyLogin(ctx, challengeID, car)
	if err != nil {
		return nil, err
	}
	acc, err := pk.Engine.Accounts.ByID(ctx, pk.Engine.DB, a.passkey.OwnerID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrInvalidPasskeyCredentials // its owner is gone
	}
	if err != nil {
		return nil, err
	}
	if refused := refusal(acc, true, pk.Engine.Mail); refused != nil {
		reason := map[string]any{"reason": refusalReason(refused), "method": FactorWebAuthn}
		if err := pk.Engine.record(ctx, pk.Engine.DB, models.EventLoginFailed, acc.ID, uuid.Nil, o, reason); err != nil {
			return nil, err
		}
		return nil, refused
	}
	iss, err := pk.Engine.complete(ctx, firstFactor{
		method: models.MethodPasskey, level: 2, origin: o, event: models.EventLogin,
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			locked, err := pk.Engine.lockActive(ctx, tx, acc.ID)
			if err == nil {
				err = pk.usePasskey(ctx, tx, acc.ID, a, "login", o)
			}
			return locked, err
		},
	})
	if errors.Is(err, errCounterWentBack) {
		pk.counterRefused(ctx, acc.ID, a, "login", o)
	}
	if errors.Is(err, errCounterWentBack) || errors.Is(err, errPasskeyGone) {
		return nil, ErrInvalidPasskeyCredentials
	}
	return iss, err
}

// verifyPasskeyLogin spends the login's challenge and verifies the
// assertion car against it and the credential it names.
func (pk *Passkeys) verifyPasskeyLogin(ctx context.Context, challengeID string, car *protocol.CredentialAssertionResponse) (*assertion, error) {
	data, err := pk.spendCeremony(ctx, challengeID, models.Binding{Purpose: models.CeremonyLogin},
		ErrInvalidWebAuthnChallenge, ErrInvalidPasskeyCredentials)
	if err != nil {
		return nil, err
	}
	parsed, err := car.Parse()
	if err != nil {
		return nil, ErrInvalidPasskeyCredentials
	}
	p, err := pk.Engine.Passkeys.ByCredentialID(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), parsed.RawID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrInvalidPasskeyCredentials
	}
	if err != nil {
		return nil, err
	}
	user, err := pk.webauthnOwner(ctx, p.OwnerID)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrInvalidPasskeyCredentials
	}
	if err != nil {
		return nil, err
	}
	found := func(rawID, _ []byte) (webauthn.User, error) {
		if !bytes.Equal(rawID, p.CredentialID) {
			return nil, errors.New("another credential")
		}
		return user, nil
	}
	if _, _, err := pk.WebAuthn.ValidatePasskeyLogin(found, *data, parsed); err != nil {
		pk.Engine.Log.Info("passkey login refused", "ownerId", p.OwnerID.String(), "reason", webauthnReason(err))
		return nil, ErrInvalidPasskeyCredentials
	}
	return assertionOf(p, parsed), nil
}
