package accounts

import (
	"errors"
	"fmt"
	"time"
)

// The engine's failures. auth.ErrBusy is passed through unchanged when the
// password hasher has no free slot.
var (
	ErrInvalidCredentials = errors.New("accounts: invalid credentials")
	ErrInactive           = errors.New("accounts: account inactive")
	ErrDeleted            = errors.New("accounts: account deleted")
	ErrExists             = errors.New("accounts: account already exists")
	ErrInvalidRefresh     = errors.New("accounts: invalid refresh token")
	ErrNotFound           = errors.New("accounts: account not found")
	// ErrUnknownRefresh is an ErrInvalidRefresh whose token names no
	// session (malformed or unknown): such presentations spend the
	// client's refresh budget, while a known token spends its session's.
	ErrUnknownRefresh = fmt.Errorf("%w: unknown or malformed", ErrInvalidRefresh)
	// ErrLimited is matched by a *LimitedError.
	ErrLimited = errors.New("accounts: budget spent")
	// ErrSlowedDown is matched by a *SlowedDownError.
	ErrSlowedDown = errors.New("accounts: login attempts slowed down")
	// ErrInvalidToken: a one-time token that is malformed, unknown,
	// expired, voided or used.
	ErrInvalidToken = errors.New("accounts: invalid one-time token")
	// ErrSamePassword: a new password equal to the current one.
	ErrSamePassword = errors.New("accounts: new password equals the current one")
	// ErrMailUnavailable: no mail can be sent (production without SMTP).
	ErrMailUnavailable = errors.New("accounts: mail unavailable")
	// ErrNotVerified: login of an unverified address while verification
	// is required.
	ErrNotVerified = errors.New("accounts: e-mail address not verified")
	// ErrSessionNotFound: a session id that names no live session of the
	// owner.
	ErrSessionNotFound = errors.New("accounts: session not found")
	// ErrSessionEnded: the caller's own session ended while its request
	// ran.
	ErrSessionEnded = errors.New("accounts: session ended")
	// ErrMFARequired is matched by a *MFARequiredError.
	ErrMFARequired = errors.New("accounts: a second factor is required")
	// ErrInvalidMFAToken: a second step's handle that is malformed,
	// unknown, expired, used or burnt.
	ErrInvalidMFAToken = errors.New("accounts: invalid mfa token")
	// ErrInvalidTOTPCode: a TOTP code that is malformed, wrong, or of a
	// step already used.
	ErrInvalidTOTPCode = errors.New("accounts: invalid totp code")
	// ErrInvalidRecoveryCode: a recovery code that is malformed, wrong or
	// used.
	ErrInvalidRecoveryCode = errors.New("accounts: invalid recovery code")
	// ErrInvalidWebAuthnResponse: a passkey assertion that does not verify
	// (every one, until passkeys exist).
	ErrInvalidWebAuthnResponse = errors.New("accounts: invalid webauthn response")
	// ErrTOTPEnabled: an enrolment while a confirmed TOTP exists.
	ErrTOTPEnabled = errors.New("accounts: totp already enabled")
	// ErrTOTPNotPending: a confirmation without a pending enrolment.
	ErrTOTPNotPending = errors.New("accounts: no pending totp")
	// ErrMFANotEnabled: a change that needs a second factor the owner does
	// not have.
	ErrMFANotEnabled = errors.New("accounts: no second factor")
)

// SlowedDownError refuses a login attempt that the Throttle made wait; the
// attempt was not evaluated.
type SlowedDownError struct{ RetryAfter time.Duration }

func (e *SlowedDownError) Error() string {
	return fmt.Sprintf("%v: retry after %v", ErrSlowedDown, e.RetryAfter)
}

// Is matches ErrSlowedDown.
func (e *SlowedDownError) Is(target error) bool { return target == ErrSlowedDown }

// LimitedError refuses a refresh of a session that has spent its refresh
// budget; nothing changed, and its token still works after RetryAfter.
type LimitedError struct{ RetryAfter time.Duration }

func (e *LimitedError) Error() string {
	return fmt.Sprintf("%v: retry after %v", ErrLimited, e.RetryAfter)
}

// Is matches ErrLimited.
func (e *LimitedError) Is(target error) bool { return target == ErrLimited }
