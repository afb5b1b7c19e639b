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

// sendToken issues a token of purpose to acc unless MailBound tokens of
// that purpose were issued within the window (counted under a lock of the
// owner, so concurrent requests cannot pass the bound together), then
// queues its mail. The mail's content lives until the token expires. With
// a request origin, the request is recorded as password_reset_requested in
// the same transaction, whether or not the bound let a mail go.
func (s *Service) sendToken(ctx context.Context, acc *models.Account, purpose string, requested *Origin) (bool, error) {
	if !s.Mail.available() {
		return false, ErrMailUnavailable
	}
	kind, link, ttl := mail.PasswordReset, s.Mail.ResetURL, s.Mail.ResetTTL
	if purpose == models.PurposeEmailVerify {
		kind, link, ttl = mail.EmailVerify, s.Mail.VerifyURL, s.Mail.VerifyTTL
	}
	raw, hash, err := auth.NewOpaqueToken() // the same form: 32 random bytes, 64 hex, stored as SHA-256
	if err != nil {
		return false, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return false, err
	}
	now := s.Now()
	tok := &models.OneTimeToken{ID: id, OwnerType: string(s.Kind.Type), OwnerID: acc.ID, Purpose: purpose,
		TokenHash: hash, ExpiresAt: now.Add(ttl), CreatedAt: now}
	issued := false
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, acc.ID); err != nil {
			return err
		}
		n, err := s.OneTime.CountSince(ctx, tx, tok.OwnerType, acc.ID, purpose, now.Add(-MailBoundWindow))
		if err != nil {
			return err
		}
		if issued = n < MailBound; issued {
			if err := s.OneTime.Issue(ctx, tx, tok); err != nil {
				return err
			}
		}
		if requested == nil {
			return nil
		}
		return s.record(ctx, tx, models.EventPasswordResetRequested, acc.ID, uuid.Nil, *requested,
			map[string]any{"mailed": issued})
	})
	if err != nil || !issued {
		if !issued && err == nil {
			s.Log.Info("mail bound reached: nothing sent", "purpose", purpose, "ownerType", tok.OwnerType, "ownerId", acc.ID.String())
		}
		return false, err
	}
	msg := mail.Message{Kind: kind, To: acc.Email, Locale: acc.Locale, Link: strings.Replace(link, "{token}", raw, 1), ValidFor: ttl}
	if _, err := s.Mail.Mailer.Enqueue(ctx, msg, tok.ExpiresAt); err != nil {
		return false, fmt.Errorf("queue %s mail: %w", kind, err)
	}
	return true, nil
}

// voidTokens voids the owner's unused one-time tokens of every purpose
// (reset, verification), in the transaction of a change that ends its
// password or its sessions: a link mailed before such a change must not
// outlive it.
func (s *Service) voidTokens(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, now time.Time) error {
	_, err := s.OneTime.VoidAll(ctx, tx, string(s.Kind.Type), owner, now)
	return err
}

// reserve refuses, with ErrExists, an address that a live email_revert
// token of an owner other than except carries: until its owner uses the
// token or it expires, the address is as taken as an account's (whoever
// changed the owner's address must not take the old one and so kill the
// revert). Call it in the transaction that takes the address, after the
// statement that takes it: that statement waits for a concurrent change
// of the address to commit, and this one then sees its revert token.
func (s *Service) reserve(ctx context.Context, tx *sqlx.Tx, email string, except uuid.UUID) error {
	taken, err := s.OneTime.Reserved(ctx, tx, string(s.Kind.Type), email, except, s.Now())
	if err == nil && taken {
		return ErrExists
	}
	return err
}

// takeToken consumes, in tx, the one-time token raw of purpose and locks
// its owner, in the order of every change to an owner (see the package
// doc): it looks the token up without a lock to learn the owner, locks the
// owner row, then consumes the token, which must still be that owner's.
// Consuming first (a lock of the token row, then the owner's) deadlocks
// with a change that locks the owner and then voids its tokens (logoutall,
// a password change or reset, a deletion). It returns the token and the
// locked owner; ErrInvalidToken: the token is unknown, used, expired,
// voided or of another owner type, or its owner is gone.
func (s *Service) takeToken(ctx context.Context, tx *sqlx.Tx, purpose, raw string, now time.Time) (*models.OneTimeToken, *models.Account, error) {
	hash := auth.HashOpaqueToken(raw)
	live, err := s.OneTime.Live(ctx, tx, purpose, hash, now)
	if errors.Is(err, models.ErrNotFound) || (err == nil && live.OwnerType != string(s.Kind.Type)) {
		return nil, nil, ErrInvalidToken
	}
	if err != nil {
		return nil, nil, err
	}
	cur, err := s.Accounts.LockForUpdate(ctx, tx, live.OwnerID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, ErrInvalidToken
	}
	if err != nil {
		return nil, nil, err
	}
	tok, err := s.OneTime.Consume(ctx, tx, purpose, hash, now)
	if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerID != live.OwnerID) {
		return nil, nil, ErrInvalidToken // used or voided while the owner was locked
	}
	if err != nil {
		return nil, nil, err
	}
	return tok, cur, nil
}
