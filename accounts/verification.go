package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// RequestEmailVerification sends a verification mail to the owner, unless
// its address is verified already or the bound is reached. It reports
// whether a mail was queued.
func (c *Credentials) RequestEmailVerification(ctx context.Context, owner uuid.UUID) (bool, error) {
	if !c.Engine.Mail.available() {
		return false, ErrMailUnavailable
	}
	acc, err := c.Engine.Account(ctx, owner)
	if err != nil {
		return false, err
	}
	if acc.EmailVerifiedAt != nil {
		return false, nil
	}
	return c.Engine.sendToken(ctx, acc, models.PurposeEmailVerify, nil)
}

// VerifyEmail consumes a verification token and marks its owner's address
// verified, in one transaction with its security event (from o).
func (c *Credentials) VerifyEmail(ctx context.Context, raw string, o Origin) (*models.Account, error) {
	if !auth.WellFormedOpaqueToken(raw) {
		return nil, ErrInvalidToken
	}
	now := c.Engine.Now()
	var acc *models.Account
	err := models.Transact(ctx, c.Engine.DB, func(tx *sqlx.Tx) error {
		tok, _, err := c.Engine.takeToken(ctx, tx, models.PurposeEmailVerify, raw, now)
		if err != nil {
			return err
		}
		acc, err = c.Engine.Accounts.VerifyEmail(ctx, tx, tok.OwnerID, now)
		if errors.Is(err, models.ErrNotFound) {
			return ErrInvalidToken
		}
		if err != nil {
			return err
		}
		return c.Engine.record(ctx, tx, models.EventEmailVerified, acc.ID, uuid.Nil, o, nil)
	})
	if err != nil {
		return nil, err
	}
	return acc, nil
}
