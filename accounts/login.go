package accounts

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// Login checks the credentials, then the account flags (so that only the
// holder of the password learns an account is inactive or deleted), and
// hands the verified password to the completion step, which opens the
// session or, when the owner has a second factor, answers
// *MFARequiredError. An unknown e-mail costs the same hashing work as a
// wrong password.
//
// With a Throttle, an attempt it makes wait is refused with a
// *SlowedDownError before anything is checked; a wrong password or unknown
// e-mail is reported to it as a failure, and a completed login (not one
// that still owes a second factor) makes the account trust the client
// (see trustClient).
func (s *Service) Login(ctx context.Context, email, password string, o Origin) (*Issued, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if err := (throttled{s.Throttle}).slowedDown(ctx, email, o); err != nil {
		return nil, err
	}
	iss, err := s.login(ctx, email, password, o)
	if errors.Is(err, ErrInvalidCredentials) {
		throttled{s.Throttle}.failed(ctx, email, o)
	}
	return iss, err
}
func (s *Service) login(ctx context.Context, email, password string, o Origin) (*Issued, error) {
	acc, err := s.Accounts.ByEmail(ctx, s.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		if err := s.Hasher.VerifyDummy(ctx, password); err != nil {
			return nil, err
		}
		return nil, ErrInvalidCredentials
	}
	if err != nil {
		return nil, err
	}
	ok, rehash, err := passwordMatches(ctx, s.Hasher, acc, password)
	if err != nil {
		return nil, err
	}
	if refused := refusal(acc, ok, s.Mail); refused != nil {
		// No change to record a transaction with: the event stands alone.
		reason := map[string]any{"reason": refusalReason(refused)}
		if err := s.record(ctx, s.DB, models.EventLoginFailed, acc.ID, uuid.Nil, o, reason); err != nil {
			return nil, err
		}
		return nil, refused
	}
	var encoded, salt string
	if rehash {
		if encoded, salt, err = s.Hasher.Hash(ctx, password); err != nil {
			return nil, err
		}
	}
	return s.complete(ctx, firstFactor{
		method: models.MethodPassword, level: 1, origin: o, event: models.EventLogin,
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			locked, err := s.lockUsable(ctx, tx, acc.ID, acc.Password)
			if err == nil && rehash {
				err = s.Accounts.SetPassword(ctx, tx, acc.ID, encoded, salt, s.Now())
			}
			return locked, err
		},
	})
}

// passwordMatches checks password against acc's hash with hasher. An account without
// a password matches none, at the cost of a check, so that its answer
// takes as long as a wrong password's.
func passwordMatches(ctx context.Context, hasher *auth.Hasher, acc *models.Account, password string) (ok, rehash bool, err error) {
	if acc.Password == "" {
		return false, false, hasher.VerifyDummy(ctx, password)
	}
	return hasher.Verify(ctx, acc.Password, password)
}

// lockUsable locks the owner id for the rest of the transaction and
// checks that it may still log in with the password hash checked: an
// owner deactivated or deleted meanwhile is ErrInactive, a password
// changed meanwhile ErrInvalidCredentials.
func (s *Service) lockUsable(ctx context.Context, tx *sqlx.Tx, id uuid.UUID, checked string) (*models.Account, error) {
	acc, err := s.lockActive(ctx, tx, id)
	if err == nil && acc.Password != checked {
		return nil, ErrInvalidCredentials
	}
	return acc, err
}

// refusal is the error a login of acc is refused with, given whether its
// password matched (credentials first, then the flags), or nil; mail (nil
// when the kind sends none) says whether an unverified address may log in.
func refusal(acc *models.Account, passwordOK bool, mail *MailSettings) error {
	switch {
	case !passwordOK:
		return ErrInvalidCredentials
	case !acc.IsActive:
		return ErrInactive
	case acc.DeletedAt != nil:
		return ErrDeleted
	case mail != nil && mail.RequireVerified && acc.EmailVerifiedAt == nil:
		return ErrNotVerified
	}
	return nil
}

// refusalReason names a login refusal in its security event.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, ErrInactive):
		return "account_inactive"
	case errors.Is(err, ErrDeleted):
		return "account_deleted"
	case errors.Is(err, ErrNotVerified):
		return "email_not_verified"
	}
	return "invalid_credentials"
}
