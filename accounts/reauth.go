package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Reauthenticate proves again, in the caller's session, that the owner is
// there: with its password (f nil), which refreshes the session's
// authentication time and leaves its level, or with a second factor,
// which also raises it to level 2. The method joins the session's methods.
// It returns the session's live row as changed.
//
// A wrong password is ErrInvalidCredentials, a wrong second factor the
// method's "invalid" error; both count as failures of the account in the
// per-account slow-down, which refuses attempts it makes wait with
// *SlowedDownError before anything is checked; a second factor counts in
// the second-factor budget too, and is refused with ErrTooManyMFAFailures
// once that is spent (a password is not).
func (s *Service) Reauthenticate(ctx context.Context, owner, session uuid.UUID, password string, f *SecondFactor, o Origin) (*models.Session, error) {
	acc, err := s.Accounts.ByID(ctx, s.DB, owner) // with its password hash
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrSessionEnded
	}
	if err != nil {
		return nil, err
	}
	if f == nil {
		err = s.slowed(ctx, acc, o)
	} else {
		err = s.gate(ctx, acc, o)
	}
	if err != nil {
		return nil, err
	}
	var p *proof
	if f == nil {
		err = s.checkPassword(ctx, acc, password, o)
	} else {
		b := models.Binding{Purpose: models.CeremonyReauthenticate, OwnerID: &owner, Session: &session}
		p, err = s.check(ctx, owner, *f, b)
	}
	var sess *models.Session
	if err == nil {
		sess, err = s.reassure(ctx, acc, session, p, o)
		s.passkeyRefused(ctx, p, err, o)
	}
	if f != nil && wrongFactor(err) {
		data := map[string]any{"context": "reauthenticate"}
		if ferr := s.factorFailed(ctx, acc, f.Method, o, data, nil); ferr != nil {
			return nil, ferr
		}
	}
	if err != nil {
		return nil, err
	}
	s.trustPassword(ctx, acc.Email, o)
	if p != nil && p.method == models.MethodRecoveryCode {
		s.notice(ctx, acc, mail.RecoveryCodeUsed)
	}
	return sess, nil
}

// checkPassword checks the owner's password for a re-authentication; a
// wrong one (or an owner without a password) is ErrInvalidCredentials,
// counted in the per-account slow-down.
func (s *Service) checkPassword(ctx context.Context, acc *models.Account, password string, o Origin) error {
	ok, _, err := s.passwordMatches(ctx, acc, password)
	if err != nil {
		return err
	}
	if !ok {
		s.throttleFailed(ctx, acc.Email, o)
		return ErrInvalidCredentials
	}
	return nil
}

// reassure records the re-authentication on the session's live row in
// one transaction with spending the second factor p (nil: a password).
func (s *Service) reassure(ctx context.Context, acc *models.Account, session uuid.UUID, p *proof, o Origin) (*models.Session, error) {
	var live *models.Session
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		now := s.Now()
		if _, err := s.lockActive(ctx, tx, acc.ID); err != nil {
			return err
		}
		method, level := models.MethodPassword, int16(1)
		if p != nil {
			if err := s.spendChecked(ctx, tx, acc.ID, p, now, o); err != nil {
				return err
			}
			method, level = p.method, 2
		}
		var err error
		if live, err = s.Sessions.LiveInChain(ctx, tx, acc.ID, session); err != nil {
			return err
		}
		live.Assurance = live.Assurance.With(method, level, now)
		if err := s.Sessions.Reassure(ctx, tx, acc.ID, live.ID, live.Assurance); err != nil {
			return err
		}
		if err := s.record(ctx, tx, models.EventReauthenticated, acc.ID, session, o, map[string]any{"method": method}); err != nil {
			return err
		}
		if method == models.MethodRecoveryCode {
			_, err = s.recoveryUsed(ctx, tx, acc.ID, session, o, "reauthenticate")
		}
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrSessionEnded
	}
	return live, err
}
