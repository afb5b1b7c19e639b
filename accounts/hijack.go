package accounts

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// The data.reason of the events of what a password reset of an
// unverified account (resetReason) or a revert of an e-mail change
// (revertReason) removed.
const (
	resetReason  = "password_reset_unverified"
	revertReason = "email_change_reverted"
)

// clearUnverified removes, in the transaction of a password reset of the
// locked acc, every identity, passkey, TOTP secret and recovery code of
// an account whose address was never verified, and marks the address
// verified, with an event per removal. Until the reset, anyone who only
// typed the address (a registration, an identity provider that does not
// vouch for it) may have added them: the reset proves the mailbox, and
// leaves only what its owner sets up next. It returns what it removed,
// for the notice; a verified account is left as it is.
func (c *Credentials) clearUnverified(ctx context.Context, tx *sqlx.Tx, acc *models.Account, o Origin, now time.Time) ([]mail.Removal, error) {
	if acc.EmailVerifiedAt != nil {
		return nil, nil
	}
	removed, err := c.removeMethods(ctx, tx, acc.ID, o, resetReason)
	if err != nil {
		return nil, err
	}
	if _, err := c.Engine.Accounts.VerifyEmail(ctx, tx, acc.ID, now); err != nil {
		return nil, err
	}
	return removed, c.Engine.record(ctx, tx, models.EventEmailVerified, acc.ID, uuid.Nil, o, map[string]any{"by": "password_reset"})
}

// removeMethods removes every identity, passkey, TOTP secret and recovery
// code of owner (removeIdentities, then removeFactors), each with its
// event carrying data.reason reason, and returns what it removed.
func (c *Credentials) removeMethods(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, o Origin, reason string) ([]mail.Removal, error) {
	removed, err := c.removeIdentities(ctx, tx, owner, o, reason)
	if err != nil {
		return nil, err
	}
	more, err := c.removeFactors(ctx, tx, owner, o, reason)
	return append(removed, more...), err
}

// removeIdentities removes every identity of the user owner, each with its
// identity_unlinked event, and spends the result codes of sign-ins that
// completed at a provider but were not exchanged yet (one of them could
// otherwise log in the identity just removed).
func (c *Credentials) removeIdentities(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, o Origin, reason string) ([]mail.Removal, error) {
	if c.Engine.Kind.Type != Users.Type {
		return nil, nil // only users sign in through identity providers
	}
	if _, err := (models.FlowStore{}).VoidResults(ctx, tx, owner, c.Engine.Now()); err != nil {
		return nil, err
	}
	ids, err := c.Engine.Identities.ByUser(ctx, tx, owner)
	if err != nil {
		return nil, err
	}
	var removed []mail.Removal
	for _, id := range ids {
		if _, err := c.Engine.Identities.Remove(ctx, tx, owner, id.ID); err != nil {
			return nil, err
		}
		data := map[string]any{"provider": id.Provider, "identityId": id.ID.String(), "reason": reason}
		if err := c.Engine.record(ctx, tx, models.EventIdentityUnlinked, owner, uuid.Nil, o, data); err != nil {
			return nil, err
		}
		removed = append(removed, mail.Removal{Kind: mail.RemovedIdentity, Name: c.Engine.notices().providerName(id.Provider)})
	}
	return removed, nil
}

// removeFactors removes every passkey (each with its passkey_removed
// event), the TOTP secret (confirmed or pending) and the recovery codes of
// owner; a confirmed TOTP secret writes mfa_disabled.
func (c *Credentials) removeFactors(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, o Origin, reason string) ([]mail.Removal, error) {
	typ := string(c.Engine.Kind.Type)
	f, err := c.Engine.Factors.Factors(ctx, tx, typ, owner)
	if err != nil {
		return nil, err
	}
	keys, err := c.Engine.Passkeys.List(ctx, tx, typ, owner)
	if err != nil {
		return nil, err
	}
	var removed []mail.Removal
	for _, p := range keys {
		data := map[string]any{"passkeyId": p.ID.String(), "name": p.Name, "reason": reason}
		if err := c.Engine.record(ctx, tx, models.EventPasskeyRemoved, owner, uuid.Nil, o, data); err != nil {
			return nil, err
		}
		removed = append(removed, mail.Removal{Kind: mail.RemovedPasskey, Name: p.Name})
	}
	if _, err := c.Engine.Passkeys.RemoveAll(ctx, tx, typ, owner); err != nil {
		return nil, err
	}
	if _, err := c.Engine.Factors.DeleteTOTP(ctx, tx, typ, owner); err != nil {
		return nil, err
	}
	if f.TOTPConfirmedAt != nil {
		data := map[string]any{"method": FactorTOTP, "reason": reason}
		if err := c.Engine.record(ctx, tx, models.EventMFADisabled, owner, uuid.Nil, o, data); err != nil {
			return nil, err
		}
		removed = append(removed, mail.Removal{Kind: mail.RemovedTOTP})
	}
	if f.RecoveryCodesRemaining > 0 {
		removed = append(removed, mail.Removal{Kind: mail.RemovedRecoveryCodes})
	}
	return removed, c.Engine.Factors.DeleteRecoveryCodes(ctx, tx, typ, owner)
}

// noticeRemoved mails the owner the list of what a reset removed, when it
// removed anything.
func (c *Credentials) noticeRemoved(ctx context.Context, acc *models.Account, removed []mail.Removal) {
	if len(removed) == 0 || c.Engine.Notices == nil || !c.Engine.Notices.Available() {
		return
	}
	msg := mail.Message{Kind: mail.MethodsRemoved, To: acc.Email, Locale: acc.Locale, Removed: removed}
	if _, err := c.Engine.Notices.Enqueue(context.WithoutCancel(ctx), msg, c.Engine.Now().Add(noticeTTL)); err != nil {
		c.Engine.Log.Warn("notification mail not queued", "kind", msg.Kind, "ownerId", acc.ID.String(), "error", err.Error())
	}
}
