package accounts

import (
	"context"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Verify is the second step of a login: raw is the mfaToken the first
// step answered, f the second factor. On success the login completes as
// the first step would have (Issued.Version is its API version), and the
// challenge, the TOTP step or the recovery code, the session and the
// login's count and event are one transaction.
//
// A malformed, unknown, expired, used or burnt handle is
// ErrInvalidMFAToken. A wrong factor (or a replayed TOTP step or recovery
// code) is the method's "invalid" error: it counts as an attempt of the
// challenge, which burns after MFASettings.MaxAttempts of them, and as a
// failure of the account in the per-account slow-down, which refuses
// attempts it makes wait with *SlowedDownError before anything is checked,
// and in its second-factor budget, which once spent refuses every attempt
// with ErrTooManyMFAFailures (see budget.go).
func (s *Service) Verify(ctx context.Context, raw string, f SecondFactor, o Origin) (*Issued, error) {
	ch, err := s.liveChallenge(ctx, raw)
	if err != nil {
		return nil, err
	}
	acc, err := s.Account(ctx, ch.OwnerID)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrInvalidMFAToken
	}
	if err != nil {
		return nil, err
	}
	if err := s.gate(ctx, acc, o); err != nil {
		return nil, err
	}
	b := models.Binding{Purpose: models.CeremonySecondFactor, OwnerID: &acc.ID, LoginChallenge: &ch.ID}
	p, err := s.check(ctx, acc.ID, f, b)
	if err == nil {
		var iss *Issued
		if iss, err = s.finish(ctx, ch, acc, p, o); err == nil {
			return iss, nil
		}
		s.passkeyRefused(ctx, p, err, o)
	}
	if wrongFactor(err) {
		return nil, s.failChallenge(ctx, ch, acc, f.Method, o, err)
	}
	return nil, err
}

// liveChallenge returns the live login challenge whose handle is raw; a
// malformed, unknown, expired, used or burnt handle is ErrInvalidMFAToken.
func (s *Service) liveChallenge(ctx context.Context, raw string) (*models.Challenge, error) {
	if !auth.WellFormedRefreshToken(raw) {
		return nil, ErrInvalidMFAToken
	}
	ch, err := s.Challenges.Live(ctx, s.DB, string(s.Kind.Type), auth.HashRefreshToken(raw), s.Now(), s.MFA.MaxAttempts)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrInvalidMFAToken
	}
	return ch, err
}

// finish completes the login of ch with the matched second factor p.
func (s *Service) finish(ctx context.Context, ch *models.Challenge, acc *models.Account, p *proof, o Origin) (*Issued, error) {
	var (
		out       *opened
		remaining *int
	)
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		out, remaining = nil, nil
		now := s.Now()
		locked, err := s.lockActive(ctx, tx, acc.ID)
		if err != nil {
			return err
		}
		ok, err := s.Challenges.Consume(ctx, tx, ch.ID, s.MFA.MaxAttempts, now)
		if err != nil {
			return err
		}
		if !ok {
			return ErrInvalidMFAToken // completed, burnt or voided meanwhile
		}
		if err := s.spendChecked(ctx, tx, acc.ID, p, now, o); err != nil {
			return err
		}
		out, err = s.openSession(ctx, tx, grant{
			account: locked, origin: o, client: clientOf(ch.Client), platform: ch.Platform,
			assurance: models.Assurance{Methods: []string{ch.FirstFactor, p.method}, Level: 2, AuthenticatedAt: now, Provider: ch.Provider}.Factored(now),
			event:     models.EventLogin, version: int(ch.ResponseVersion),
		}, now)
		if err != nil || p.method != models.MethodRecoveryCode {
			return err
		}
		n, err := s.recoveryUsed(ctx, tx, acc.ID, out.session.ChainID, o, "login")
		remaining = &n
		return err
	})
	if err != nil {
		return nil, err
	}
	if remaining != nil {
		s.notice(ctx, out.account, mail.RecoveryCodeUsed)
	}
	iss, err := s.loggedIn(ctx, out)
	if err != nil {
		return nil, err
	}
	iss.RecoveryCodesRemaining = remaining
	return iss, nil
}

// failChallenge counts a wrong second factor against ch (burning it at the
// last allowed attempt) and against the account, with its security event,
// and returns cause.
func (s *Service) failChallenge(ctx context.Context, ch *models.Challenge, acc *models.Account, method string, o Origin, cause error) error {
	data := map[string]any{"context": "login"}
	err := s.factorFailed(ctx, acc, method, o, data, func(tx *sqlx.Tx) error {
		attempts, live, err := s.Challenges.Fail(ctx, tx, ch.ID, s.MFA.MaxAttempts, s.Now())
		data["attempts"], data["burnt"] = attempts, live && attempts >= s.MFA.MaxAttempts
		return err
	})
	if err != nil {
		return err
	}
	return cause
}
