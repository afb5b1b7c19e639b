package accounts

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// TOTP per RFC 6238: SHA-1, 6 digits, 30-second steps, 20-byte secrets.
const (
	totpPeriod      = 30
	totpDigits      = 6
	totpSecretBytes = 20
)

// totpOpts is the HOTP arithmetic of one step. The library computes a
// step's code; the loop over the accepted steps is ours (matchTOTP),
// because the library's validation does not say which step matched, and a
// step must be accepted only once.
var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

var totpBase32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// totpStep is the RFC 6238 time step of t.
func totpStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// normalizeTOTP reads a code as authenticator apps show it ("123 456"):
// spaces are ignored, and what remains must be exactly 6 ASCII digits.
func normalizeTOTP(code string) (string, bool) {
	code = strings.ReplaceAll(code, " ", "")
	if len(code) != totpDigits {
		return "", false
	}
	for i := 0; i < len(code); i++ {
		if code[i] < '0' || code[i] > '9' {
			return "", false
		}
	}
	return code, true
}

// matchTOTP returns the step, among the step of now and skew steps on each
// side, whose code is code. Every candidate is computed and compared in
// constant time, with no early exit, so the time taken says nothing of
// which (if any) matched; when two steps match, the later one is kept.
func matchTOTP(secret []byte, code string, now time.Time, skew int) (int64, bool, error) {
	code, ok := normalizeTOTP(code)
	if !ok {
		return 0, false, nil
	}
	b32 := totpBase32.EncodeToString(secret)
	current := totpStep(now)
	var matched int64
	found := 0
	for k := -skew; k <= skew; k++ {
		step := current + int64(k)
		if step < 0 {
			continue
		}
		want, err := hotp.GenerateCodeCustom(b32, uint64(step), totpOpts)
		if err != nil {
			return 0, false, err
		}
		eq := subtle.ConstantTimeCompare([]byte(want), []byte(code))
		matched = int64(subtle.ConstantTimeSelect(eq, int(step), int(matched)))
		found |= eq
	}
	return matched, found == 1, nil
}

// TOTPEnrollment is a pending TOTP secret, shown once to be entered into
// an authenticator app.
type TOTPEnrollment struct {
	// Secret is the secret in base32 (no padding).
	Secret string
	// URL is the otpauth:// URL a QR code carries.
	URL         string
	Issuer      string
	AccountName string
	Digits      int
	Period      int
	Algorithm   string
}

// EnrollTOTP makes a new pending TOTP secret for the owner, replacing an
// earlier pending one. The secret is stored only encrypted.
// ErrTOTPEnabled means the owner has a confirmed one.
func (sf *SecondFactors) EnrollTOTP(ctx context.Context, owner uuid.UUID) (*TOTPEnrollment, error) {
	if sf.Engine.MFA.Key == nil {
		return nil, errNoDataKey
	}
	acc, err := sf.Engine.Account(ctx, owner)
	if err != nil {
		return nil, err
	}
	secret := make([]byte, totpSecretBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	sealed, nonce, err := sf.Engine.MFA.Key.Seal(secret, totpContext(string(sf.Engine.Kind.Type), owner))
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	row := &models.TOTP{ID: id, OwnerType: string(sf.Engine.Kind.Type), OwnerID: owner, SecretCiphertext: sealed, SecretNonce: nonce, CreatedAt: sf.Engine.Now()}
	if _, err := sf.Engine.Factors.PutPendingTOTP(ctx, sf.Engine.DB, row); err != nil {
		if errors.Is(err, models.ErrConflict) {
			return nil, ErrTOTPEnabled
		}
		return nil, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: sf.Engine.MFA.Issuer, AccountName: acc.Email, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Secret: secret})
	if err != nil {
		return nil, fmt.Errorf("otpauth url: %w", err)
	}
	return &TOTPEnrollment{Secret: key.Secret(), URL: key.URL(), Issuer: sf.Engine.MFA.Issuer, AccountName: acc.Email,
		Digits: totpDigits, Period: totpPeriod, Algorithm: "SHA1"}, nil
}

// openTOTP decrypts the secret of row. A secret that does not open (the
// data key is not the one it was sealed with, or the row was tampered
// with) is an internal error, logged without any secret: never a bypass.
func (sf *SecondFactors) openTOTP(row *models.TOTP) ([]byte, error) {
	if sf.Engine.MFA.Key == nil {
		return nil, errNoDataKey
	}
	secret, err := sf.Engine.MFA.Key.Open(row.SecretCiphertext, row.SecretNonce, totpContext(row.OwnerType, row.OwnerID))
	if err != nil {
		sf.Engine.Log.Error("a TOTP secret does not open under DATA_ENCRYPTION_KEY", "ownerType", row.OwnerType, "ownerId", row.OwnerID.String())
		return nil, fmt.Errorf("open the totp secret of %s %s: %w", row.OwnerType, row.OwnerID, err)
	}
	return secret, nil
}

// matchOwnTOTP matches code against the owner's TOTP secret, confirmed or
// pending as confirmed says, and returns its row and the step the code is
// for. No secret in that state is absent; a code that does not match is
// ErrInvalidTOTPCode.
func (sf *SecondFactors) matchOwnTOTP(ctx context.Context, owner uuid.UUID, confirmed bool, code string, absent error) (*models.TOTP, int64, error) {
	row, err := sf.Engine.Factors.TOTP(ctx, sf.Engine.DB, string(sf.Engine.Kind.Type), owner)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (row.ConfirmedAt != nil) != confirmed) {
		return nil, 0, absent
	}
	if err != nil {
		return nil, 0, err
	}
	secret, err := sf.openTOTP(row)
	if err != nil {
		return nil, 0, err
	}
	step, ok, err := matchTOTP(secret, code, sf.Engine.Now(), sf.Engine.MFA.Skew)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, ErrInvalidTOTPCode
	}
	return row, step, nil
}

// Confirmed is the outcome of a confirmed enrolment: the caller's session
// goes on with new tokens, and the recovery codes are shown once.
type Confirmed struct {
	*Issued
	RecoveryCodes []string
}

// ConfirmTOTP confirms the owner's pending secret with a code of it (whose
// step is consumed, so that it cannot be used again to log in), gives the
// owner a set of recovery codes, ends every other session and access
// token, and continues the caller's session at level 2 with otp added,
// all in one transaction; after it the slow-down trusts the client for
// second factors (the Issued's Device is the value it should keep).
// ErrTOTPNotPending means nothing is pending.
func (sf *SecondFactors) ConfirmTOTP(ctx context.Context, owner, session uuid.UUID, code string, o Origin) (*Confirmed, error) {
	row, step, err := sf.matchOwnTOTP(ctx, owner, false, code, ErrTOTPNotPending)
	if err != nil {
		return nil, err
	}
	codes, err := sf.newRecoveryCodes(owner)
	if err != nil {
		return nil, err
	}
	var (
		acc     *models.Account
		sess    *models.Session
		raw     string
		revoked []uuid.UUID
	)
	err = models.Transact(ctx, sf.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		acc, sess, raw, revoked, err = sf.confirmTOTP(ctx, tx, row, step, codes, session, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	sf.Engine.notifyEnded(owner, without(revoked, session))
	sf.Engine.notices().send(ctx, acc, mail.MFAEnabled)
	// The client has just proved the new factor: the slow-down trusts it
	// for second factors, as it would after a login that passed one.
	device := throttled{sf.Engine.Throttle}.trustClient(ctx, acc.Email, o)
	iss, err := sf.Engine.issue(acc, sess, raw)
	if err != nil {
		return nil, err
	}
	iss.Device = device
	return &Confirmed{Issued: iss, RecoveryCodes: codes.plain}, nil
}

// confirmTOTP is the transaction of ConfirmTOTP.
func (sf *SecondFactors) confirmTOTP(ctx context.Context, tx *sqlx.Tx, row *models.TOTP, step int64, codes *recoveryCodes, session uuid.UUID, o Origin) (*models.Account, *models.Session, string, []uuid.UUID, error) {
	owner, now := row.OwnerID, sf.Engine.Now()
	if _, err := sf.Engine.lockActive(ctx, tx, owner); err != nil {
		return nil, nil, "", nil, err
	}
	ok, err := sf.Engine.Factors.ConfirmTOTP(ctx, tx, row.ID, row.SecretNonce, step, now)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if !ok {
		return nil, nil, "", nil, ErrTOTPNotPending // confirmed, removed or replaced meanwhile
	}
	if err := sf.Engine.Factors.ReplaceRecoveryCodes(ctx, tx, row.OwnerType, owner, codes.ids, codes.hashes, now); err != nil {
		return nil, nil, "", nil, err
	}
	raise := func(a models.Assurance) models.Assurance { return a.With(models.MethodTOTP, 2, now) }
	sess, raw, revoked, err := sf.Engine.restartSession(ctx, tx, owner, session, raise, o, now)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if err := sf.Engine.record(ctx, tx, models.EventMFAEnabled, owner, session, o,
		map[string]any{"method": FactorTOTP, "revoked": len(revoked) - 1}); err != nil {
		return nil, nil, "", nil, err
	}
	acc, err := sf.Engine.Accounts.ByID(ctx, tx, owner)
	return acc, sess, raw, revoked, err
}

// lockActive locks the owner id for the rest of the transaction; one
// deactivated, deleted or gone is ErrInactive.
func (s *Service) lockActive(ctx context.Context, tx *sqlx.Tx, id uuid.UUID) (*models.Account, error) {
	acc, err := s.Accounts.LockForUpdate(ctx, tx, id)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, ErrInactive
	case err != nil:
		return nil, err
	case !acc.IsActive || acc.DeletedAt != nil:
		return nil, ErrInactive
	}
	return acc, nil
}
