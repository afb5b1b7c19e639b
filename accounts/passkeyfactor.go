package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// A passkey as a second factor (a login's second step) or to
// re-authenticate: the owner is known, so the options list its passkeys,
// and user presence suffices (the other factor is the password, or the
// session's own login).

// assertion is a verified assertion of a stored passkey, and what its use
// changes.
type assertion struct {
	// passkey is the row as read before the verification.
	passkey      *models.Passkey
	counter      uint32
	backupState  bool
	userVerified bool
}

func assertionOf(p *models.Passkey, parsed *protocol.ParsedCredentialAssertionData) *assertion {
	f := parsed.Response.AuthenticatorData.Flags
	return &assertion{passkey: p, counter: parsed.Response.AuthenticatorData.Counter,
		backupState: f.HasBackupState(), userVerified: f.HasUserVerified()}
}

// The refusals of a verified assertion's use.
var (
	// errCounterWentBack: the counter of a device-bound passkey did not
	// advance.
	errCounterWentBack = errors.New("accounts: the counter of a device-bound passkey went back")
	// errPasskeyGone: the passkey was removed while its assertion was
	// checked.
	errPasskeyGone = errors.New("accounts: passkey removed meanwhile")
)

// usePasskey records the use of a verified assertion in tx, under a lock
// of the passkey: the counter never goes below the stored one; a counter
// that did not advance is refused for a device-bound passkey
// (errCounterWentBack: a cloned authenticator) and accepted with a
// passkey_warning event for a backup-eligible one (synced passkeys may
// share a counter across devices); the backup state is the assertion's.
func (pk *Passkeys) usePasskey(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, a *assertion, where string, o Origin) error {
	now := pk.Engine.Now()
	p, err := pk.Engine.Passkeys.Lock(ctx, tx, string(pk.Engine.Kind.Type), owner, a.passkey.ID)
	if errors.Is(err, models.ErrNotFound) {
		return errPasskeyGone
	}
	if err != nil {
		return err
	}
	next, regressed := counterVerdict(p.SignCount, a.counter)
	if regressed && !p.BackupEligible {
		return errCounterWentBack
	}
	if regressed {
		data := map[string]any{"passkeyId": p.ID.String(), "storedCounter": p.SignCount, "counter": a.counter,
			"context": where, "accepted": true}
		if err := pk.Engine.record(ctx, tx, models.EventPasskeyWarning, owner, uuid.Nil, o, data); err != nil {
			return err
		}
	}
	return pk.Engine.Passkeys.RecordUse(ctx, tx, p.ID, models.PasskeyUse{SignCount: next, BackupState: a.backupState,
		UserVerified: a.userVerified, At: now})
}

// counterRefused records the passkey_warning of an assertion refused for
// its counter, once its use has been rolled back: the owner's security log
// shows that a copy of its authenticator may exist.
func (pk *Passkeys) counterRefused(ctx context.Context, owner uuid.UUID, a *assertion, where string, o Origin) {
	data := map[string]any{"passkeyId": a.passkey.ID.String(), "storedCounter": a.passkey.SignCount, "counter": a.counter,
		"context": where, "accepted": false}
	if err := pk.Engine.record(ctx, pk.Engine.DB, models.EventPasskeyWarning, owner, uuid.Nil, o, data); err != nil {
		pk.Engine.Log.Warn("passkey warning not recorded", "ownerId", owner.String(), "error", err.Error())
	}
}

// SecondFactorOptions starts the passkey assertion of a login's second
// step: raw is its mfaToken (ErrInvalidMFAToken when it is not live). An
// owner without passkeys is ErrInvalidWebAuthnResponse.
func (sf *SecondFactors) SecondFactorOptions(ctx context.Context, raw string) (*WebAuthnOptions, error) {
	ch, err := sf.liveChallenge(ctx, raw)
	if err != nil {
		return nil, err
	}
	b := models.Binding{Purpose: models.CeremonySecondFactor, OwnerID: &ch.OwnerID, LoginChallenge: &ch.ID}
	return sf.Passkeys.assertionOptions(ctx, ch.OwnerID, b)
}

// ReauthOptions starts the passkey assertion of a re-authentication in
// the owner's session.
func (sf *SecondFactors) ReauthOptions(ctx context.Context, owner, session uuid.UUID) (*WebAuthnOptions, error) {
	return sf.Passkeys.assertionOptions(ctx, owner, models.Binding{Purpose: models.CeremonyReauthenticate, OwnerID: &owner, Session: &session})
}

// assertionOptions starts an assertion of one of the owner's passkeys,
// bound to b.
func (pk *Passkeys) assertionOptions(ctx context.Context, owner uuid.UUID, b models.Binding) (*WebAuthnOptions, error) {
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	user, err := pk.webauthnOwner(ctx, owner)
	if err != nil {
		return nil, err
	}
	if len(user.passkeys) == 0 {
		return nil, ErrInvalidWebAuthnResponse
	}
	assertion, data, err := pk.WebAuthn.BeginLogin(user, webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, err
	}
	return pk.beginCeremony(ctx, b, assertion.Response, data)
}

// checkWebAuthn verifies the passkey assertion of f for the owner in the
// ceremony bound to b, spending it. Every failure is
// ErrInvalidWebAuthnResponse, except a credential that is not JSON of a
// credential (ErrMalformedCredential, nothing spent).
func (pk *Passkeys) checkWebAuthn(ctx context.Context, owner uuid.UUID, f SecondFactor, b models.Binding) (*proof, error) {
	if len(f.Credential) == 0 {
		return nil, ErrInvalidWebAuthnResponse
	}
	car, err := decodeAssertion(f.Credential)
	if err != nil {
		return nil, err
	}
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	data, err := pk.spendCeremony(ctx, f.ChallengeID, b, ErrInvalidWebAuthnResponse, ErrInvalidWebAuthnResponse)
	if err != nil {
		return nil, err
	}
	parsed, err := car.Parse()
	if err != nil {
		return nil, ErrInvalidWebAuthnResponse
	}
	p, err := pk.Engine.Passkeys.ByCredentialID(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), parsed.RawID)
	if errors.Is(err, models.ErrNotFound) || (err == nil && p.OwnerID != owner) {
		return nil, ErrInvalidWebAuthnResponse
	}
	if err != nil {
		return nil, err
	}
	user, err := pk.webauthnOwner(ctx, owner)
	if err != nil {
		return nil, err
	}
	if _, err := pk.WebAuthn.ValidateLogin(user, *data, parsed); err != nil {
		pk.Engine.Log.Info("passkey assertion refused", "ownerId", owner.String(), "context", b.Purpose, "reason", webauthnReason(err))
		return nil, ErrInvalidWebAuthnResponse
	}
	return &proof{method: models.MethodPasskey, owner: owner, passkey: assertionOf(p, parsed), where: b.Purpose}, nil
}

// spendPasskey records the use of the passkey of p in tx; a refused use
// is ErrInvalidWebAuthnResponse (wrapping why).
func (pk *Passkeys) spendPasskey(ctx context.Context, tx *sqlx.Tx, p *proof, o Origin) error {
	err := pk.usePasskey(ctx, tx, p.owner, p.passkey, p.where, o)
	if errors.Is(err, errCounterWentBack) || errors.Is(err, errPasskeyGone) {
		return fmt.Errorf("%w: %w", ErrInvalidWebAuthnResponse, err)
	}
	return err
}

// passkeyRefused records, after the rollback of a refused second factor,
// the warning of a passkey refused for its counter.
func (pk *Passkeys) passkeyRefused(ctx context.Context, p *proof, err error, o Origin) {
	if p != nil && p.passkey != nil && errors.Is(err, errCounterWentBack) {
		pk.counterRefused(ctx, p.owner, p.passkey, p.where, o)
	}
}
