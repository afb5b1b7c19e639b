package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Passkeys runs an owner kind's passkeys on its Service: their
// registration, renaming and removal, the passkey login, and the WebAuthn
// ceremonies a passkey takes part in as a second factor. Fields are
// dependencies, set once before use (NewPasskeys sets them all).
type Passkeys struct {
	Engine *Service
	// WebAuthn is the relying party; nil makes every ceremony
	// ErrPasskeysUnavailable (listing, renaming and removing still work).
	WebAuthn *webauthn.WebAuthn
	// Ceremonies stores the server's half of WebAuthn ceremonies.
	Ceremonies models.CeremonyStore
}

// NewPasskeys returns the Passkeys of engine with the relying party rp
// (nil: passkeys off), its store prepared on the engine's database.
func NewPasskeys(engine *Service, rp *webauthn.WebAuthn) *Passkeys {
	return &Passkeys{Engine: engine, WebAuthn: rp, Ceremonies: models.CeremonyStore{}.Prepared(engine.DB)}
}

// DefaultPasskeyName names a passkey registered without a name.
const DefaultPasskeyName = "Passkey"

// knownTransports are the transports a passkey may record; a client's
// other values are dropped.
var knownTransports = []string{"usb", "nfc", "ble", "smart-card", "hybrid", "internal"}

// ListPasskeys returns the owner's passkeys, newest first.
func (pk *Passkeys) ListPasskeys(ctx context.Context, owner uuid.UUID) ([]models.Passkey, error) {
	return pk.Engine.Passkeys.List(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), owner)
}

// PasskeyRegisterOptions starts the registration of a passkey by the owner
// in its session: a discoverable credential, user verification required,
// no attestation, the owner's passkeys excluded.
func (pk *Passkeys) PasskeyRegisterOptions(ctx context.Context, owner, session uuid.UUID) (*WebAuthnOptions, error) {
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	user, err := pk.webauthnOwner(ctx, owner)
	if err != nil {
		return nil, err
	}
	exclude := webauthn.Credentials(user.WebAuthnCredentials()).CredentialDescriptors()
	creation, data, err := pk.WebAuthn.BeginRegistration(user, webauthn.WithExclusions(exclude),
		webauthn.WithConveyancePreference(protocol.PreferNoAttestation))
	if err != nil {
		return nil, err
	}
	b := models.Binding{Purpose: models.CeremonyRegister, OwnerID: &owner, Session: &session}
	return pk.beginCeremony(ctx, b, creation.Response, data)
}

// RegisterPasskey finishes a registration begun by PasskeyRegisterOptions
// in the same session: credential is the JSON of the created credential,
// name its name (DefaultPasskeyName when empty). An answer that does not
// verify, or a credential id registered already, is
// ErrInvalidWebAuthnResponse; a challenge id not issued for this
// registration ErrInvalidWebAuthnChallenge.
func (pk *Passkeys) RegisterPasskey(ctx context.Context, owner, session uuid.UUID, challengeID string, credential json.RawMessage, name string, o Origin) (*models.Passkey, error) {
	ccr, err := decodeCreation(credential)
	if err != nil {
		return nil, err
	}
	if pk.WebAuthn == nil {
		return nil, ErrPasskeysUnavailable
	}
	b := models.Binding{Purpose: models.CeremonyRegister, OwnerID: &owner, Session: &session}
	data, err := pk.spendCeremony(ctx, challengeID, b, ErrInvalidWebAuthnChallenge, ErrInvalidWebAuthnResponse)
	if err != nil {
		return nil, err
	}
	user, err := pk.webauthnOwner(ctx, owner)
	if err != nil {
		return nil, err
	}
	parsed, err := ccr.Parse()
	if err != nil {
		return nil, ErrInvalidWebAuthnResponse
	}
	cred, err := pk.WebAuthn.CreateCredential(user, *data, parsed)
	if err != nil {
		pk.Engine.Log.Info("passkey registration refused", "ownerId", owner.String(), "reason", webauthnReason(err))
		return nil, ErrInvalidWebAuthnResponse
	}
	return pk.addPasskey(ctx, owner, session, passkeyOf(cred, string(pk.Engine.Kind.Type), owner, name, pk.Engine.Now()), o)
}

// addPasskey stores p with its event, and mails the owner. The first
// passkey of an owner without a second factor turns the second factor on:
// like a confirmed TOTP, it ends every other session (a session someone
// else opened with the password alone must not outlive it), while the
// caller's session, the one in which it was registered, goes on. The
// caller's session must still be live once the owner is locked: a request
// that passed its session check just before a password reset ended every
// session must not add a sign-in method after the reset removed them
// (ErrSessionEnded).
func (pk *Passkeys) addPasskey(ctx context.Context, owner, session uuid.UUID, p *models.Passkey, o Origin) (*models.Passkey, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	p.ID = id
	var (
		acc   *models.Account
		ended []uuid.UUID
	)
	err = models.Transact(ctx, pk.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		if acc, err = pk.Engine.lockActive(ctx, tx, owner); err != nil {
			return err
		}
		if _, err := pk.Engine.Sessions.LiveInChain(ctx, tx, owner, session); errors.Is(err, models.ErrNotFound) {
			return ErrSessionEnded
		} else if err != nil {
			return err
		}
		if err := pk.Engine.Passkeys.Insert(ctx, tx, p); err != nil {
			return err
		}
		data := map[string]any{"passkeyId": p.ID.String(), "name": p.Name}
		if !acc.MFAEnabled {
			if ended, err = pk.endOthers(ctx, tx, owner, session); err != nil {
				return err
			}
			data["revoked"] = len(ended)
		}
		return pk.Engine.record(ctx, tx, models.EventPasskeyAdded, owner, uuid.Nil, o, data)
	})
	if errors.Is(err, models.ErrDuplicate) {
		return nil, ErrInvalidWebAuthnResponse // registered already, by anyone
	}
	if err != nil {
		return nil, err
	}
	pk.Engine.notifyEnded(owner, ended)
	p.UpdatedAt = p.CreatedAt
	pk.Engine.notices().send(ctx, acc, mail.PasskeyAdded)
	return p, nil
}

// endOthers revokes every session of the locked owner but the chain
// session, voids its pending login challenges, and returns the chains it
// ended.
func (pk *Passkeys) endOthers(ctx context.Context, tx *sqlx.Tx, owner, session uuid.UUID) ([]uuid.UUID, error) {
	now := pk.Engine.Now()
	ended, err := pk.Engine.Sessions.RevokeOthers(ctx, tx, owner, session, now)
	if err != nil {
		return nil, err
	}
	_, err = pk.Engine.Challenges.VoidAll(ctx, tx, string(pk.Engine.Kind.Type), owner, now)
	return ended, err
}

// passkeyOf is the row of a verified new credential.
func passkeyOf(c *webauthn.Credential, ownerType string, owner uuid.UUID, name string, now time.Time) *models.Passkey {
	if name == "" {
		name = DefaultPasskeyName
	}
	aaguid, _ := uuid.FromBytes(c.Authenticator.AAGUID) // 16 bytes when present; the zero id otherwise
	transports := pq.StringArray{}
	for _, t := range c.Transport {
		if slices.Contains(knownTransports, string(t)) && !slices.Contains(transports, string(t)) {
			transports = append(transports, string(t))
		}
	}
	return &models.Passkey{
		OwnerType: ownerType, OwnerID: owner, CredentialID: c.ID, PublicKey: c.PublicKey,
		SignCount: int64(c.Authenticator.SignCount), AAGUID: aaguid, Transports: transports,
		UserVerified: c.Flags.UserVerified, BackupEligible: c.Flags.BackupEligible, BackupState: c.Flags.BackupState,
		Name: name, CreatedAt: now,
	}
}

// RenamePasskey names the owner's passkey id.
func (pk *Passkeys) RenamePasskey(ctx context.Context, owner, id uuid.UUID, name string) (*models.Passkey, error) {
	p, err := pk.Engine.Passkeys.Rename(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), owner, id, name, pk.Engine.Now())
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrPasskeyNotFound
	}
	return p, err
}

// RemovePasskey removes the owner's passkey id, from the owner's request
// o, unless it is the owner's last way to sign in (ErrLastSignInMethod).
// The owner is mailed.
func (pk *Passkeys) RemovePasskey(ctx context.Context, owner, id uuid.UUID, o Origin) error {
	return pk.remove(ctx, owner, id, o, nil)
}

// RemovePasskeyFor removes the user's passkey id on its behalf (the
// support desk's answer to a lost device), recorded with the admin's id.
// Unlike the owner's own removal it may remove the last way to sign in:
// the owner can still set a password through the password reset mail.
func (pk *Passkeys) RemovePasskeyFor(ctx context.Context, owner, id uuid.UUID, by Actor) error {
	return pk.remove(ctx, owner, id, by.Origin, &by)
}

// remove is RemovePasskey (by nil) and RemovePasskeyFor (by the admin).
func (pk *Passkeys) remove(ctx context.Context, owner, id uuid.UUID, o Origin, by *Actor) error {
	var acc *models.Account
	err := models.Transact(ctx, pk.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		if by != nil {
			acc, err = pk.Engine.Accounts.LockForUpdate(ctx, tx, owner) // an admin manages inactive accounts too
		} else {
			acc, err = pk.Engine.lockActive(ctx, tx, owner)
		}
		if err != nil {
			return err
		}
		return pk.removePasskey(ctx, tx, acc, id, o, by)
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	pk.Engine.notices().send(ctx, acc, mail.PasskeyRemoved)
	return nil
}

// removePasskey is the transaction of remove, the owner locked.
func (pk *Passkeys) removePasskey(ctx context.Context, tx *sqlx.Tx, acc *models.Account, id uuid.UUID, o Origin, by *Actor) error {
	typ := string(pk.Engine.Kind.Type)
	p, err := pk.Engine.Passkeys.Remove(ctx, tx, typ, acc.ID, id)
	if errors.Is(err, models.ErrNotFound) {
		return ErrPasskeyNotFound
	}
	if err != nil {
		return err
	}
	left, err := pk.Engine.signInMethods(ctx, tx, acc)
	if err != nil {
		return err
	}
	if by == nil && left.Count() == 0 {
		return ErrLastSignInMethod
	}
	if err := pk.dropOrphanRecoveryCodes(ctx, tx, acc.ID); err != nil {
		return err
	}
	data := map[string]any{"passkeyId": p.ID.String(), "name": p.Name}
	if by != nil {
		data["adminId"] = by.AdminID.String()
		o = by.Origin
	}
	return pk.Engine.record(ctx, tx, models.EventPasskeyRemoved, acc.ID, uuid.Nil, o, data)
}

// dropOrphanRecoveryCodes removes the owner's recovery codes when it has
// no second factor left for them to stand in for.
func (pk *Passkeys) dropOrphanRecoveryCodes(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID) error {
	f, err := pk.Engine.Factors.Factors(ctx, tx, string(pk.Engine.Kind.Type), owner)
	if err != nil || factorsEnabled(f) {
		return err
	}
	return pk.Engine.Factors.DeleteRecoveryCodes(ctx, tx, string(pk.Engine.Kind.Type), owner)
}
