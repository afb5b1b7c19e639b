package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/models"
)

// The second factors and re-authentication methods, as clients name them
// (in MFA_REQUIRED, REAUTHENTICATION_REQUIRED and the method argument).
const (
	FactorPassword     = "password"
	FactorTOTP         = "totp"
	FactorRecoveryCode = "recovery_code"
	FactorWebAuthn     = "webauthn"
)

// SecondFactors runs an owner kind's second factors on its Service: TOTP
// enrolment and removal, recovery codes, the second step of a login, the
// budget of failed second-factor attempts and re-authentication. Passkeys
// used as a factor are checked through Passkeys. Fields are dependencies,
// set once before use.
type SecondFactors struct {
	Engine   *Service
	Passkeys *Passkeys
}

// MFASettings configures the second factor of a Service.
type MFASettings struct {
	// Key encrypts the TOTP secrets and keys the recovery codes' hashes;
	// nil makes every use of a second factor fail (an internal error).
	Key *datakey.Key
	// Issuer names the service in authenticator apps (the otpauth issuer).
	Issuer string
	// Skew is how many 30-second steps before and after the current one a
	// TOTP code may be of (0 allowed).
	Skew int
	// ChallengeTTL is how long a login's second step may wait.
	ChallengeTTL time.Duration
	// MaxAttempts wrong second factors burn a login's second step.
	MaxAttempts int
}

// DefaultMFASettings are the defaults of MFA_ISSUER, MFA_TOTP_SKEW,
// MFA_CHALLENGE_EXPIRES_IN and MFA_CHALLENGE_MAX_ATTEMPTS (no key).
func DefaultMFASettings() MFASettings {
	return MFASettings{Issuer: "actionkit", Skew: 1, ChallengeTTL: 5 * time.Minute, MaxAttempts: 5}
}

// errNoDataKey reports a Service built without MFASettings.Key.
var errNoDataKey = errors.New("accounts: no data-encryption key for the second factor")

// factorsEnabled reports whether an owner with factors has a second factor
// its password and identity-provider logins must pass: a confirmed TOTP,
// or a passkey (as the derived mfa_enabled of an account says).
func factorsEnabled(f models.Factors) bool { return f.TOTPConfirmedAt != nil || f.Passkeys > 0 }

// factorMethods lists the second factors an owner with f can use now.
func factorMethods(f models.Factors) []string {
	methods := []string{}
	if f.TOTPConfirmedAt != nil {
		methods = append(methods, FactorTOTP)
	}
	if factorsEnabled(f) && f.RecoveryCodesRemaining > 0 {
		methods = append(methods, FactorRecoveryCode)
	}
	if f.Passkeys > 0 {
		methods = append(methods, FactorWebAuthn)
	}
	return methods
}

// MFAStatus is what an owner has of a second factor.
type MFAStatus struct {
	Enabled bool
	// Methods are the second factors usable now.
	Methods                []string
	TOTPConfirmedAt        *time.Time
	RecoveryCodesRemaining int
	// Passkeys counts the owner's passkeys.
	Passkeys int
}

// Status returns the owner's second-factor status.
func (sf *SecondFactors) Status(ctx context.Context, owner uuid.UUID) (*MFAStatus, error) {
	f, err := sf.Engine.Factors.Factors(ctx, sf.Engine.DB, string(sf.Engine.Kind.Type), owner)
	if err != nil {
		return nil, err
	}
	return &MFAStatus{Enabled: factorsEnabled(f), Methods: factorMethods(f), TOTPConfirmedAt: f.TOTPConfirmedAt,
		RecoveryCodesRemaining: f.RecoveryCodesRemaining, Passkeys: f.Passkeys}, nil
}

// ReauthMethods lists how the owner can re-authenticate now: its password
// when it has one (unless factorOnly: a requirement only a second factor
// meets), then its second factors.
func (sf *SecondFactors) ReauthMethods(ctx context.Context, owner uuid.UUID, factorOnly bool) ([]string, error) {
	acc, err := sf.Engine.Account(ctx, owner)
	if err != nil {
		return nil, err
	}
	f, err := sf.Engine.Factors.Factors(ctx, sf.Engine.DB, string(sf.Engine.Kind.Type), owner)
	if err != nil {
		return nil, err
	}
	methods := []string{}
	if acc.HasPassword && !factorOnly {
		methods = append(methods, FactorPassword)
	}
	return append(methods, factorMethods(f)...), nil
}

// OpensTOTP reports whether key opens the stored TOTP secret row: the
// start-up check that DATA_ENCRYPTION_KEY is the key the secrets were
// sealed with.
func OpensTOTP(key *datakey.Key, row *models.TOTP) bool {
	if key == nil {
		return false
	}
	_, err := key.Open(row.SecretCiphertext, row.SecretNonce, totpContext(row.OwnerType, row.OwnerID))
	return err == nil
}

// totpContext binds a sealed TOTP secret to its table and owner, so that
// a ciphertext copied to another owner's row does not open.
func totpContext(ownerType string, owner uuid.UUID) []byte {
	return []byte("mfa_totp.secret_ciphertext " + ownerType + " " + owner.String())
}
