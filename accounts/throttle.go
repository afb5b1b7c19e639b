package accounts

import (
	"context"
	"time"
)

// The per-account slow-down of password guessing (the Service's Throttle)
// is consulted by every action that checks a password of an account: a
// login of any version, and a password change's current password. Its
// trust of a client (by address, or by the device value the client keeps)
// is granted by trustClient, which a login that passed a second factor and
// the confirmation of an authenticator app end with, and for passwords
// only by trustPassword (a login without a second factor, a reset, a
// password change, a password re-authentication): second factors are
// checked by slowed, for which only trustClient's trust counts.

// Throttle slows password guessing against one account (implemented by
// ratelimit.SlowDown). Wait returns how long an attempt on email from ip,
// presenting device (the client's device value, "" if none), must wait
// before it may be evaluated (zero: now); Failed reports an evaluated
// attempt that failed, and Succeeded a proof of a second factor (a login
// at level 2, an authenticator app's confirmation): the account then
// trusts the client, for passwords and second factors, and Succeeded
// returns the device value the client should keep.
// Proved is Succeeded for a proof of the password or the mailbox alone (a
// reset, a password change, a password re-authentication), which trusts
// the client for passwords only. Implementations fail open.
type Throttle interface {
	Wait(ctx context.Context, email, ip, device string) time.Duration
	Failed(ctx context.Context, email, ip, device string)
	Succeeded(ctx context.Context, email, ip, device string) string
	Proved(ctx context.Context, email, ip, device string) string
}

// throttled is a Service's Throttle, which may be nil (no slow-down): the
// engine consults it through these methods only.
type throttled struct{ Throttle Throttle }

// slowedDown asks the Throttle whether an attempt on email from o must
// wait, and refuses it with a *SlowedDownError if so; a refused attempt is
// not evaluated and counts as no failure.
func (s throttled) slowedDown(ctx context.Context, email string, o Origin) error {
	if s.Throttle == nil {
		return nil
	}
	if wait := s.Throttle.Wait(ctx, email, o.IP, o.Device); wait > 0 {
		return &SlowedDownError{RetryAfter: wait}
	}
	return nil
}

// failed reports a wrong password (or an unknown e-mail) for email
// from o, even if the request was cancelled meanwhile.
func (s throttled) failed(ctx context.Context, email string, o Origin) {
	if s.Throttle != nil {
		s.Throttle.Failed(context.WithoutCancel(ctx), email, o.IP, o.Device)
	}
}

// trustClient is the step a completed login at level 2 ends with (the
// completion of a second factor, or a passkey) and the confirmation of an
// authenticator app: the client o has proved it holds the account of
// email with a second factor, so its failures are forgotten and the
// account trusts it, by address and by device, in its slow-down, for
// passwords and second factors. It returns the device value the client should keep
// (o.Device when the account trusts it already, else a new one; "" without
// a Throttle). The outcome is recorded even if the request was cancelled
// meanwhile.
func (s throttled) trustClient(ctx context.Context, email string, o Origin) string {
	if s.Throttle == nil {
		return ""
	}
	return s.Throttle.Succeeded(context.WithoutCancel(ctx), email, o.IP, o.Device)
}

// trustPassword is trustClient for a proof of the password or of the
// mailbox alone (a login at level 1, a password change, a reset, a
// re-authentication): the client is trusted for passwords only. Its second factors still count
// against the account, so that whoever controls only the mailbox
// gains no unthrottled second-factor guesses by resetting the password.
func (s throttled) trustPassword(ctx context.Context, email string, o Origin) string {
	if s.Throttle == nil {
		return ""
	}
	return s.Throttle.Proved(context.WithoutCancel(ctx), email, o.IP, o.Device)
}
