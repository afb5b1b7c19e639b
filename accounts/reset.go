package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// RequestPasswordReset queues the work of a reset request for email. The
// request itself does the same thing for every address, so that neither
// its answer nor its time tells whether the address has an account.
func (c *Credentials) RequestPasswordReset(ctx context.Context, email string, o Origin) error {
	if !c.Engine.Mail.available() {
		return ErrMailUnavailable
	}
	_, err := c.Engine.Mail.Enqueuer.Enqueue(queues.MailQueue, V1RequestPasswordResetTask, map[string]any{
		"email": strings.ToLower(strings.TrimSpace(email)), "ip": o.IP, "userAgent": o.UserAgent,
	})
	return err
}

// RunPasswordResetRequest is the job of a reset request made from o: an
// active owner of email, within the mail bound, gets a new reset token
// (voiding its earlier ones) and a mail with its link, and the request is
// recorded as a security event of the owner. Anything else does nothing.
func (c *Credentials) RunPasswordResetRequest(ctx context.Context, email string, o Origin) error {
	acc, err := c.Engine.Accounts.ByEmail(ctx, c.Engine.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !acc.IsActive || acc.DeletedAt != nil {
		return nil
	}
	_, err = c.Engine.sendToken(ctx, acc, models.PurposePasswordReset, &o)
	return err
}

// ResetPassword sets a new password with a reset token: the token is
// consumed, the owner's other unused one-time tokens voided, the token
// version incremented and every session revoked, in
// one transaction. It does not log in, but the account then trusts the
// client that completed it (for passwords: see trustPassword), whose device value it
// returns. The token is checked before the password is hashed, so that a
// random token costs no hashing work; the transaction takes it only if it
// is still unused, so of concurrent resets with one token exactly one
// succeeds.
func (c *Credentials) ResetPassword(ctx context.Context, raw, password string, o Origin) (device string, err error) {
	if !auth.WellFormedOpaqueToken(raw) {
		return "", ErrInvalidToken
	}
	hash := auth.HashOpaqueToken(raw)
	tok, err := c.Engine.OneTime.Live(ctx, c.Engine.DB, models.PurposePasswordReset, hash, c.Engine.Now())
	if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerType != string(c.Engine.Kind.Type)) {
		return "", ErrInvalidToken
	}
	if err != nil {
		return "", err
	}
	encoded, salt, err := c.Engine.Hasher.Hash(ctx, password)
	if err != nil {
		return "", err
	}
	now := c.Engine.Now()
	var (
		acc     *models.Account
		removed []mail.Removal
	)
	err = models.Transact(ctx, c.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		acc, removed, err = c.resetPassword(ctx, tx, hash, tok.OwnerID, encoded, salt, now, o)
		return err
	})
	if err != nil {
		return "", err
	}
	c.Engine.notifyEnded(acc.ID, nil)
	c.noticeRemoved(ctx, acc, removed)
	return throttled{c.Engine.Throttle}.trustPassword(ctx, acc.Email, o), nil
}

// resetPassword is the transaction of ResetPassword: it consumes the token
// with hash, which must still be the live token of owner, and sets the
// owner's password; an owner whose address was never verified also loses
// every sign-in method and second factor anyone may have added (see
// clearUnverified). It returns the owner and what was removed.
func (c *Credentials) resetPassword(ctx context.Context, tx *sqlx.Tx, hash string, owner uuid.UUID, encoded, salt string, now time.Time, o Origin) (*models.Account, []mail.Removal, error) {
	// The owner row first, then the token's, as every change to an owner
	// (see package doc): consuming first would deadlock with a logoutall
	// that locked the owner and voids the token.
	acc, err := c.Engine.Accounts.LockForUpdate(ctx, tx, owner)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (!acc.IsActive || acc.DeletedAt != nil)) {
		return nil, nil, ErrInvalidToken
	}
	if err != nil {
		return nil, nil, err
	}
	tok, err := c.Engine.OneTime.Consume(ctx, tx, models.PurposePasswordReset, hash, now)
	if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerID != owner) {
		return nil, nil, ErrInvalidToken // used, voided or expired since it was checked
	}
	if err != nil {
		return nil, nil, err
	}
	if err := c.Engine.Accounts.SetPassword(ctx, tx, owner, encoded, salt, now); err != nil {
		return nil, nil, err
	}
	if err := c.Engine.voidTokens(ctx, tx, owner, now); err != nil {
		return nil, nil, err
	}
	if _, err := c.Engine.Accounts.BumpTokenVersion(ctx, tx, owner, now); err != nil {
		return nil, nil, err
	}
	if err := c.Engine.MFAFailures.Clear(ctx, tx, owner); err != nil { // lifts a spent second-factor budget
		return nil, nil, err
	}
	revoked, err := c.Engine.endAll(ctx, tx, owner, now)
	if err != nil {
		return nil, nil, err
	}
	removed, err := c.clearUnverified(ctx, tx, acc, o, now)
	if err != nil {
		return nil, nil, err
	}
	data := map[string]any{"revoked": len(revoked), "removed": len(removed)}
	return acc, removed, c.Engine.record(ctx, tx, models.EventPasswordReset, owner, uuid.Nil, o, data)
}
