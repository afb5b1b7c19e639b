package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// SecondFactor is a second factor a client presents: at a login's second
// step, to re-authenticate, or to turn the factor off.
type SecondFactor struct {
	// Method is FactorTOTP, FactorRecoveryCode or FactorWebAuthn.
	Method string
	// Code is the TOTP or recovery code.
	Code string
	// ChallengeID names the passkey ceremony the assertion Credential
	// answers (FactorWebAuthn): the JSON of the credential, as the
	// browser's PublicKeyCredential.toJSON() gives it.
	ChallengeID string
	Credential  json.RawMessage
}

// proof is a second factor that matched and is not spent yet: spend marks
// it used, in the transaction of what it authorises.
type proof struct {
	// method is models.MethodTOTP, MethodRecoveryCode or MethodPasskey.
	method string
	// totp and step are the TOTP row and the step its code is of.
	totp uuid.UUID
	step int64
	// code is the recovery code's row.
	code uuid.UUID
	// owner, passkey and where are the owner, the verified assertion and
	// the ceremony's purpose of a passkey.
	owner   uuid.UUID
	passkey *assertion
	where   string
}

// wrongFactor reports a second factor that did not match (or was spent
// already): the client's mistake, counted as a failed attempt.
func wrongFactor(err error) bool {
	return errors.Is(err, ErrInvalidTOTPCode) || errors.Is(err, ErrInvalidRecoveryCode) ||
		errors.Is(err, ErrInvalidWebAuthnResponse)
}

// check matches f against the owner's second factors and returns what
// spend needs, or the method's "invalid" error. Nothing is written, but a
// passkey's ceremony (bound to b) is spent.
func (s *Service) check(ctx context.Context, owner uuid.UUID, f SecondFactor, b models.Binding) (*proof, error) {
	switch f.Method {
	case FactorTOTP:
		return s.checkTOTP(ctx, owner, f.Code)
	case FactorRecoveryCode:
		id, ok, err := s.matchRecoveryCode(ctx, owner, f.Code)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrInvalidRecoveryCode
		}
		return &proof{method: models.MethodRecoveryCode, code: id}, nil
	case FactorWebAuthn:
		return s.checkWebAuthn(ctx, owner, f, b)
	}
	return nil, ErrInvalidTOTPCode
}

// checkTOTP matches a code of the owner's confirmed TOTP secret.
func (s *Service) checkTOTP(ctx context.Context, owner uuid.UUID, code string) (*proof, error) {
	row, step, err := s.matchOwnTOTP(ctx, owner, true, code, ErrInvalidTOTPCode)
	if err != nil {
		return nil, err
	}
	return &proof{method: models.MethodTOTP, totp: row.ID, step: step}, nil
}

// spend marks p used in tx by one conditional statement: a TOTP step not
// later than the last one accepted, or a recovery code used meanwhile, is
// the method's "invalid" error (a replay), and changes nothing. A
// passkey's use follows its counter rule (see usePasskey); o is the
// request, for its warning event.
func (s *Service) spend(ctx context.Context, tx *sqlx.Tx, p *proof, now time.Time, o Origin) error {
	if p.method == models.MethodPasskey {
		return s.spendPasskey(ctx, tx, p, o)
	}
	if p.method == models.MethodRecoveryCode {
		ok, err := s.Factors.UseRecoveryCode(ctx, tx, p.code, now)
		if err == nil && !ok {
			err = ErrInvalidRecoveryCode
		}
		return err
	}
	ok, err := s.Factors.UseTOTPStep(ctx, tx, p.totp, p.step, now)
	if err == nil && !ok {
		err = ErrInvalidTOTPCode
	}
	return err
}

// recoveryUsed records the use of a recovery code in tx and returns how
// many of the owner's codes remain.
func (s *Service) recoveryUsed(ctx context.Context, tx *sqlx.Tx, owner, session uuid.UUID, o Origin, where string) (int, error) {
	f, err := s.Factors.Factors(ctx, tx, string(s.Kind.Type), owner)
	if err != nil {
		return 0, err
	}
	data := map[string]any{"remaining": f.RecoveryCodesRemaining, "context": where}
	return f.RecoveryCodesRemaining, s.record(ctx, tx, models.EventRecoveryCodeUsed, owner, session, o, data)
}

// StrictThrottle is a Throttle that can also check a second factor's
// attempt (implemented by ratelimit.SlowDown): CheckFactor spares the
// account's count only to a client trusted by a completed login, and
// reports an error when it cannot decide instead of failing open.
type StrictThrottle interface {
	CheckFactor(ctx context.Context, email, ip, device string) (time.Duration, error)
}

// slowed refuses an attempt on acc's factors that the per-account
// slow-down makes wait, before anything is checked. Unlike a password
// login it fails closed: when the throttle cannot decide (its store is
// down) the attempt is refused with that error and nothing is spent,
// since the slow-down is what bounds guesses of a six-digit code across
// challenges. A throttle that cannot check second factors apart (not a
// StrictThrottle) is asked as for a password.
func (s *Service) slowed(ctx context.Context, acc *models.Account, o Origin) error {
	if s.Throttle == nil {
		return nil
	}
	wait := time.Duration(0)
	if strict, ok := s.Throttle.(StrictThrottle); ok {
		var err error
		if wait, err = strict.CheckFactor(ctx, acc.Email, o.IP, o.Device); err != nil {
			return err
		}
	} else {
		wait = s.Throttle.Wait(ctx, acc.Email, o.IP, o.Device)
	}
	if wait > 0 {
		return &SlowedDownError{RetryAfter: wait}
	}
	return nil
}
