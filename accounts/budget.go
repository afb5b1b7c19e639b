package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// The second-factor budget of an account bounds guesses of its second
// factor for good, where the per-account slow-down only paces them: every
// failed second-factor attempt (the second step of a login,
// re-authentication with a factor, turning TOTP off; any client, any
// factor) is counted in PostgreSQL, in the transaction that records its
// mfa_challenge_failed event. A successful second factor sets the count
// back to 0, and so do a completed password reset and an admin's resetmfa.
const (
	// MFAFailureLimit consecutive failures stop the account's second
	// factors (ErrTooManyMFAFailures) until a password reset or an admin's
	// resetmfa.
	MFAFailureLimit = 100
	// MFAFailureNotice consecutive failures mail the owner
	// (mail.MFAFailures), at most once every MFAFailureNoticeEvery.
	MFAFailureNotice      = 10
	MFAFailureNoticeEvery = 24 * time.Hour
)

// ErrTooManyMFAFailures refuses a second factor of an account whose
// consecutive failures reached MFAFailureLimit; nothing was checked.
var ErrTooManyMFAFailures = errors.New("accounts: too many failed second factors")

// factorStopped refuses, with ErrTooManyMFAFailures, a second factor of an
// owner whose budget is spent. Read in the transaction that spends a
// factor, after the owner's row is locked, it is exact: a failure counted
// meanwhile has committed.
func (sf *SecondFactors) factorStopped(ctx context.Context, db models.DB, owner uuid.UUID) error {
	n, err := sf.Engine.MFAFailures.Count(ctx, db, owner)
	if errors.Is(err, models.ErrNotFound) {
		return ErrInactive
	}
	if err != nil {
		return err
	}
	if n >= MFAFailureLimit {
		return ErrTooManyMFAFailures
	}
	return nil
}

// factorFailed records a wrong second factor of the owner: a failure of
// the account in the per-account slow-down, then, in one transaction, a
// failure of its budget (locking the owner's row first, as every change
// that spends a factor does), what also runs (the login challenge's
// attempt; nil for none), and the security event with data. When the
// count reaches the notice threshold the owner is mailed after commit.
// An attempt that finds the budget spent once the owner is locked (it
// passed gate while concurrent failures reached the limit) counts nothing
// and answers ErrTooManyMFAFailures, as a right code would then: past the
// limit no answer tells a wrong guess from a right one.
func (sf *SecondFactors) factorFailed(ctx context.Context, acc *models.Account, method string, o Origin, data map[string]any, also func(tx *sqlx.Tx) error) error {
	throttled{sf.Engine.Throttle}.failed(ctx, acc.Email, o)
	notice := false
	err := models.Transact(ctx, sf.Engine.DB, func(tx *sqlx.Tx) error {
		f, err := sf.Engine.MFAFailures.Failed(ctx, tx, acc.ID, sf.Engine.Now(), MFAFailureNotice, MFAFailureNoticeEvery)
		if err != nil {
			return err
		}
		if f.Count > MFAFailureLimit {
			return ErrTooManyMFAFailures // rolls the count back
		}
		notice = f.Notice
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		data["method"], data["consecutive"] = method, f.Count
		return sf.Engine.record(ctx, tx, models.EventMFAChallengeFailed, acc.ID, uuid.Nil, o, data)
	})
	if err == nil && notice {
		sf.Engine.notices().send(ctx, acc, mail.MFAFailures)
	}
	return err
}

// spendChecked spends p in tx (see spend) unless the owner's budget is
// spent, and sets the count of consecutive failures back to 0. The caller
// has locked the owner's row.
func (sf *SecondFactors) spendChecked(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, p *proof, now time.Time, o Origin) error {
	if err := sf.factorStopped(ctx, tx, owner); err != nil {
		return err
	}
	if err := sf.spend(ctx, tx, p, now, o); err != nil {
		return err
	}
	return sf.Engine.MFAFailures.Clear(ctx, tx, owner)
}

// gate refuses a second factor of acc before anything is checked: with
// ErrTooManyMFAFailures when its budget is spent, with the per-account
// slow-down's answer (see slowed) when that makes it wait.
func (sf *SecondFactors) gate(ctx context.Context, acc *models.Account, o Origin) error {
	if err := sf.factorStopped(ctx, sf.Engine.DB, acc.ID); err != nil {
		return err
	}
	return sf.slowed(ctx, acc, o)
}
