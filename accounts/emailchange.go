package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// The lifetimes of the e-mail change tokens (CONTRACT §23).
const (
	EmailChangeTTL = time.Hour
	EmailRevertTTL = 7 * 24 * time.Hour
)

// ErrSameEmail: an e-mail change to the address the account has.
var ErrSameEmail = errors.New("accounts: new e-mail address equals the current one")

// RequestEmailChange starts moving the owner's account to newEmail
// (normalised by the caller as at register). Whatever the address, the
// answer is the same: a free address gets a link to confirm it (an
// email_change token of EmailChangeTTL that voids the owner's earlier one),
// one that belongs to an account gets a notice instead and a dead token
// (expired when created) that only counts, and the current address is
// told of the request in both cases. Beyond MailBound requests of the
// owner within MailBoundWindow nothing is sent and nothing stored, whatever
// the addresses were; beyond MailBound requests to newEmail within the
// window, by anyone, newEmail gets nothing more (the token is dead) but the
// request counts and the current address is told. The mails are queued
// after the commit.
func (c *Credentials) RequestEmailChange(ctx context.Context, owner uuid.UUID, newEmail string) error {
	s := c.Engine
	if !s.Mail.available() {
		return ErrMailUnavailable
	}
	acc, err := s.Account(ctx, owner)
	if err != nil {
		return err
	}
	if strings.EqualFold(acc.Email, newEmail) {
		return ErrSameEmail
	}
	holder, err := s.Accounts.ByEmail(ctx, s.DB, newEmail)
	switch {
	case errors.Is(err, models.ErrNotFound):
		holder = nil
	case err != nil:
		return err
	}
	raw, hash, err := auth.NewOpaqueToken()
	if err != nil {
		return err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := s.Now()
	email := newEmail
	tok := &models.OneTimeToken{ID: id, OwnerType: string(s.Kind.Type), OwnerID: owner, Purpose: models.PurposeEmailChange,
		TokenHash: hash, ExpiresAt: now.Add(EmailChangeTTL), CreatedAt: now, Email: &email}
	sent, toNew := false, false
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if acc, err = s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			return err
		}
		n, err := s.OneTime.CountSince(ctx, tx, tok.OwnerType, owner, models.PurposeEmailChange, now.Add(-MailBoundWindow))
		if err != nil || n >= MailBound {
			return err
		}
		to, err := s.OneTime.CountToSince(ctx, tx, tok.OwnerType, models.PurposeEmailChange, newEmail, now.Add(-MailBoundWindow))
		if err != nil {
			return err
		}
		sent, toNew = true, to < MailBound
		if holder != nil || !toNew {
			// A dead token: the address is taken (or has had its
			// share), but the request counts in both bounds as one
			// that mailed a link would, and still voids the earlier
			// token.
			tok.ExpiresAt = now
		}
		return s.OneTime.Issue(ctx, tx, tok)
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil || !sent {
		if err == nil {
			s.Log.Info("mail bound reached: nothing sent", "purpose", models.PurposeEmailChange, "ownerId", owner.String())
		}
		return err
	}
	switch {
	case !toNew:
		s.Log.Info("mail bound of the address reached: nothing sent to it", "purpose", models.PurposeEmailChange, "ownerId", owner.String())
	case holder != nil:
		s.notices().sendTo(ctx, newEmail, holder.Locale, mail.Message{Kind: mail.EmailChangeTaken, NewEmail: newEmail})
	default:
		msg := mail.Message{Kind: mail.EmailChange, To: newEmail, Locale: acc.Locale,
			Link: strings.Replace(s.Mail.ChangeURL, "{token}", raw, 1), ValidFor: EmailChangeTTL}
		if _, err := s.Mail.Mailer.Enqueue(ctx, msg, tok.ExpiresAt); err != nil {
			return fmt.Errorf("queue %s mail: %w", msg.Kind, err)
		}
	}
	s.notices().sendTo(ctx, acc.Email, acc.Locale, mail.Message{Kind: mail.EmailChangeRequested, NewEmail: newEmail})
	return nil
}

// ConfirmEmailChange completes an e-mail change with the token mailed to
// the new address: the address becomes the new one, verified; every session
// of the owner ends (its tokens and sockets at once), its token version
// goes up and its unused one-time tokens are void; email_changed is
// recorded with data.oldEmail; all in one transaction. The old address then
// gets a link (an email_revert token of EmailRevertTTL, which nothing but
// its use or its expiry ends) that puts it back. ErrInvalidToken: the token
// is malformed, unknown, used, expired or voided, or its account is gone,
// inactive or deleted; ErrExists: the address was taken meanwhile.
func (c *Credentials) ConfirmEmailChange(ctx context.Context, raw string, o Origin) error {
	s := c.Engine
	if !auth.WellFormedOpaqueToken(raw) {
		return ErrInvalidToken
	}
	revRaw, revHash, err := auth.NewOpaqueToken()
	if err != nil {
		return err
	}
	revID, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := s.Now()
	var acc *models.Account
	var old string
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		tok, cur, err := s.takeToken(ctx, tx, models.PurposeEmailChange, raw, now)
		if err != nil {
			return err
		}
		if tok.Email == nil || !cur.IsActive || cur.DeletedAt != nil {
			return ErrInvalidToken
		}
		old = cur.Email
		if acc, err = c.moveEmail(ctx, tx, tok.OwnerID, *tok.Email, now); err != nil {
			return err
		}
		rev := &models.OneTimeToken{ID: revID, OwnerType: tok.OwnerType, OwnerID: tok.OwnerID, Purpose: models.PurposeEmailRevert,
			TokenHash: revHash, ExpiresAt: now.Add(EmailRevertTTL), CreatedAt: now, Email: &old}
		if err := s.OneTime.Issue(ctx, tx, rev); err != nil {
			return err
		}
		return s.record(ctx, tx, models.EventEmailChanged, acc.ID, uuid.Nil, o, map[string]any{"oldEmail": old})
	})
	if err != nil {
		return err
	}
	s.notifyEnded(acc.ID, nil)
	msg := mail.Message{Kind: mail.EmailChanged, To: old, Locale: acc.Locale, NewEmail: acc.Email,
		Link: strings.Replace(s.Mail.RevertURL, "{token}", revRaw, 1), ValidFor: EmailRevertTTL}
	if s.Mail.available() {
		if _, err := s.Mail.Mailer.Enqueue(context.WithoutCancel(ctx), msg, now.Add(EmailRevertTTL)); err != nil {
			s.Log.Error("e-mail revert mail not queued", "ownerId", acc.ID.String(), "error", err.Error())
		}
	}
	return nil
}

// RevertEmailChange puts back, with the token mailed to the old address
// after a change, that address (verified), whatever happened to the account
// since. It is account recovery for an owner whose address was changed by
// someone who took over a session, and locks that someone out: every
// session ends, the token version goes up, the unused one-time tokens are
// void, every identity, passkey, TOTP secret and recovery code is removed
// (whoever changed the address may have added them) and the password made
// unusable (they may have reset it), email_change_reverted is recorded,
// and a fresh password_reset token is issued, all in one transaction; then
// the restored address gets a mail with that token's link and the list of
// what was removed. The revert tokens issued at or after this one (by
// later changes) are void: a taker who changed the address twice cannot
// revert to the address of the first change. ErrInvalidToken: the token is
// malformed, unknown, used or expired, or its account is gone; ErrExists:
// the old address was taken meanwhile.
func (c *Credentials) RevertEmailChange(ctx context.Context, raw string, o Origin) error {
	s := c.Engine
	if !auth.WellFormedOpaqueToken(raw) {
		return ErrInvalidToken
	}
	resetRaw, resetHash, err := auth.NewOpaqueToken()
	if err != nil {
		return err
	}
	resetID, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := s.Now()
	reset := &models.OneTimeToken{ID: resetID, OwnerType: string(s.Kind.Type), Purpose: models.PurposePasswordReset,
		TokenHash: resetHash, ExpiresAt: now.Add(s.Mail.ResetTTL), CreatedAt: now}
	var (
		acc     *models.Account
		removed []mail.Removal
	)
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		tok, cur, err := s.takeToken(ctx, tx, models.PurposeEmailRevert, raw, now)
		if err != nil {
			return err
		}
		if tok.Email == nil {
			return ErrInvalidToken
		}
		from := cur.Email
		if acc, err = c.moveEmail(ctx, tx, tok.OwnerID, *tok.Email, now); err != nil {
			return err
		}
		// The revert tokens of later changes (mailed to addresses the
		// account had after this one: maybe a taker's) must not undo this
		// revert.
		if _, err := s.OneTime.VoidRevertsSince(ctx, tx, tok.OwnerType, tok.OwnerID, tok.CreatedAt, now); err != nil {
			return err
		}
		if removed, err = c.lockOut(ctx, tx, tok.OwnerID, o, now); err != nil {
			return err
		}
		// Issued after moveEmail voided the unused tokens, so it is the
		// one live way in.
		reset.OwnerID = tok.OwnerID
		if err := s.OneTime.Issue(ctx, tx, reset); err != nil {
			return err
		}
		return s.record(ctx, tx, models.EventEmailChangeReverted, acc.ID, uuid.Nil, o,
			map[string]any{"fromEmail": from, "removed": len(removed), "passwordCleared": true})
	})
	if err != nil {
		return err
	}
	s.notifyEnded(acc.ID, nil)
	if s.Mail.available() {
		msg := mail.Message{Kind: mail.EmailReverted, To: acc.Email, Locale: acc.Locale, Removed: removed,
			Link: strings.Replace(s.Mail.ResetURL, "{token}", resetRaw, 1), ValidFor: s.Mail.ResetTTL}
		if _, err := s.Mail.Mailer.Enqueue(context.WithoutCancel(ctx), msg, reset.ExpiresAt); err != nil {
			s.Log.Error("e-mail revert mail not queued", "ownerId", acc.ID.String(), "error", err.Error())
		}
	}
	return nil
}

// lockOut removes, in the transaction of a revert of the locked owner,
// every way in that whoever changed its address may have set up: every
// identity, passkey, TOTP secret and recovery code (as a reset of an
// unverified account does), and the password, which becomes unusable. A
// spent second-factor budget is lifted with the factors. It returns what
// it removed, for the mail.
func (c *Credentials) lockOut(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, o Origin, now time.Time) ([]mail.Removal, error) {
	removed, err := c.removeMethods(ctx, tx, owner, o, revertReason)
	if err != nil {
		return nil, err
	}
	if err := c.Engine.MFAFailures.Clear(ctx, tx, owner); err != nil {
		return nil, err
	}
	return removed, c.Engine.Accounts.SetPassword(ctx, tx, owner, "", "", now)
}

// moveEmail sets the locked owner's address to email, verified at now, and
// ends what an address change ends: every session (and its login
// challenges), the access tokens (token version + 1) and the unused
// one-time tokens but the revert ones. An address that belongs to another
// account is ErrExists: the unique index decides between concurrent
// changes to one address. So is one kept for another owner's revert
// (see reserve); the owner's own revert tokens do not count.
func (c *Credentials) moveEmail(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, email string, now time.Time) (*models.Account, error) {
	s := c.Engine
	acc, err := s.Accounts.SetEmail(ctx, tx, owner, email, now)
	if errors.Is(err, models.ErrDuplicate) {
		return nil, ErrExists
	}
	if err != nil {
		return nil, err
	}
	if err := s.reserve(ctx, tx, email, owner); err != nil {
		return nil, err
	}
	if acc.TokenVersion, err = s.Accounts.BumpTokenVersion(ctx, tx, owner, now); err != nil {
		return nil, err
	}
	if _, err := s.endAll(ctx, tx, owner, now); err != nil {
		return nil, err
	}
	return acc, s.voidTokens(ctx, tx, owner, now)
}
