package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// DisableTOTP turns the owner's TOTP off, proven by a code: a TOTP code
// (six digits) or one of its recovery codes, which is spent. The recovery
// codes go too when no other second factor (a passkey) remains. A
// wrong or replayed code is ErrInvalidTOTPCode, whichever kind it was,
// and counts in the per-account slow-down (a *SlowedDownError before
// anything is checked) with an mfa_challenge_failed event, as in Verify
// and Reauthenticate (and in the second-factor budget: a spent one is
// ErrTooManyMFAFailures); ErrMFANotEnabled means there is no confirmed
// TOTP.
func (s *Service) DisableTOTP(ctx context.Context, owner uuid.UUID, code string, o Origin) (*models.Account, error) {
	acc, err := s.Accounts.ByID(ctx, s.DB, owner)
	if err != nil {
		return nil, err
	}
	if err := s.gate(ctx, acc, o); err != nil {
		return nil, err
	}
	row, err := s.Factors.TOTP(ctx, s.DB, string(s.Kind.Type), owner)
	if errors.Is(err, models.ErrNotFound) || (err == nil && row.ConfirmedAt == nil) {
		return nil, ErrMFANotEnabled
	}
	if err != nil {
		return nil, err
	}
	method := FactorRecoveryCode
	if _, digits := normalizeTOTP(code); digits {
		method = FactorTOTP
	}
	p, err := s.check(ctx, owner, SecondFactor{Method: method, Code: code}, models.Binding{})
	var changed *models.Account
	if err == nil {
		err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
			var err error
			changed, err = s.disableTOTP(ctx, tx, owner, p, o)
			return err
		})
	}
	if wrongFactor(err) {
		if ferr := s.factorFailed(ctx, acc, method, o, map[string]any{"context": "disable"}, nil); ferr != nil {
			return nil, ferr
		}
		return nil, ErrInvalidTOTPCode
	}
	if err != nil {
		return nil, err
	}
	s.notice(ctx, changed, mail.MFADisabled)
	return changed, nil
}

// disableTOTP is the transaction of DisableTOTP.
func (s *Service) disableTOTP(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, p *proof, o Origin) (*models.Account, error) {
	now := s.Now()
	if _, err := s.lockActive(ctx, tx, owner); err != nil {
		return nil, err
	}
	if err := s.spendChecked(ctx, tx, owner, p, now, o); err != nil {
		return nil, err
	}
	gone, err := s.Factors.DeleteTOTP(ctx, tx, string(s.Kind.Type), owner)
	if err != nil {
		return nil, err
	}
	if !gone {
		return nil, ErrMFANotEnabled
	}
	f, err := s.Factors.Factors(ctx, tx, string(s.Kind.Type), owner)
	if err != nil {
		return nil, err
	}
	if !factorsEnabled(f) {
		if err := s.Factors.DeleteRecoveryCodes(ctx, tx, string(s.Kind.Type), owner); err != nil {
			return nil, err
		}
	}
	data := map[string]any{"method": FactorTOTP, "provedWith": p.method}
	if err := s.record(ctx, tx, models.EventMFADisabled, owner, uuid.Nil, o, data); err != nil {
		return nil, err
	}
	return s.Accounts.ByID(ctx, tx, owner)
}
