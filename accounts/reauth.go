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
func (sf *SecondFactors) Reauthenticate(ctx context.Context, owner, session uuid.UUID, password string, f *SecondFactor, o Origin) (*models.Session, error) {
	acc, err := sf.Engine.Accounts.ByID(ctx, sf.Engine.DB, owner) // with its password hash
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrSessionEnded
	}
	if err != nil {
		return nil, err
	}
	if f == nil {
		err = sf.slowed(ctx, acc, o)
	} else {
		err = sf.gate(ctx, acc, o)
	}
	if err != nil {
		return nil, err
	}
	var p *proof
	if f == nil {
		err = sf.checkPassword(ctx, acc, password, o)
	} else {
		b := models.Binding{Purpose: models.CeremonyReauthenticate, OwnerID: &owner, Session: &session}
		p, err = sf.check(ctx, owner, *f, b)
	}
	var sess *models.Session
	if err == nil {
		sess, err = sf.reassure(ctx, acc, session, p, o)
		sf.Passkeys.passkeyRefused(ctx, p, err, o)
	}
	if f != nil && wrongFactor(err) {
		data := map[string]any{"context": "reauthenticate"}
		if ferr := sf.factorFailed(ctx, acc, f.Method, o, data, nil); ferr != nil {
			return nil, ferr
		}
	}
	if err != nil {
		return nil, err
	}
	throttled{sf.Engine.Throttle}.trustPassword(ctx, acc.Email, o)
	if p != nil && p.method == models.MethodRecoveryCode {
		sf.Engine.notices().send(ctx, acc, mail.RecoveryCodeUsed)
	}
	return sess, nil
}

// checkPassword checks the owner's password for a re-authentication; a
// wrong one (or an owner without a password) is ErrInvalidCredentials,
// counted in the per-account slow-down.
func (sf *SecondFactors) checkPassword(ctx context.Context, acc *models.Account, password string, o Origin) error {
	ok, _, err := passwordMatches(ctx, sf.Engine.Hasher, acc, password)
	if err != nil {
		return err
	}
	if !ok {
		throttled{sf.Engine.Throttle}.failed(ctx, acc.Email, o)
		return ErrInvalidCredentials
	}
	return nil
}

// reassure records the re-authentication on the session's live row in
// one transaction with spending the second factor p (nil: a password).
func (sf *SecondFactors) reassure(ctx context.Context, acc *models.Account, session uuid.UUID, p *proof, o Origin) (*models.Session, error) {
	var live *models.Session
	err := models.Transact(ctx, sf.Engine.DB, func(tx *sqlx.Tx) error {
		now := sf.Engine.Now()
		if _, err := sf.Engine.lockActive(ctx, tx, acc.ID); err != nil {
			return err
		}
		method, level := models.MethodPassword, int16(1)
		if p != nil {
			if err := sf.spendChecked(ctx, tx, acc.ID, p, now, o); err != nil {
				return err
			}
			method, level = p.method, 2
		}
		var err error
		if live, err = sf.Engine.Sessions.LiveInChain(ctx, tx, acc.ID, session); err != nil {
			return err
		}
		live.Assurance = live.Assurance.With(method, level, now)
		if err := sf.Engine.Sessions.Reassure(ctx, tx, acc.ID, live.ID, live.Assurance); err != nil {
			return err
		}
		if err := sf.Engine.record(ctx, tx, models.EventReauthenticated, acc.ID, session, o, map[string]any{"method": method}); err != nil {
			return err
		}
		if method == models.MethodRecoveryCode {
			_, err = sf.recoveryUsed(ctx, tx, acc.ID, session, o, "reauthenticate")
		}
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrSessionEnded
	}
	return live, err
}
