package accounts

import "context"

// The per-account slow-down of password guessing (the Service's Throttle)
// is consulted by every action that checks a password of an account: a
// login of any version, and a password change's current password. Its
// trust of a client (by address, or by the device value the client keeps)
// is granted by trustClient, the one step every completed login ends with,
// and for passwords only by trustPassword (a reset, a password change, a
// password re-authentication): second factors are checked by slowed, for
// which only a completed login's trust counts.

// slowedDown asks the Throttle whether an attempt on email from o must
// wait, and refuses it with a *SlowedDownError if so; a refused attempt is
// not evaluated and counts as no failure.
func (s *Service) slowedDown(ctx context.Context, email string, o Origin) error {
	if s.Throttle == nil {
		return nil
	}
	if wait := s.Throttle.Wait(ctx, email, o.IP, o.Device); wait > 0 {
		return &SlowedDownError{RetryAfter: wait}
	}
	return nil
}

// throttleFailed reports a wrong password (or an unknown e-mail) for email
// from o, even if the request was cancelled meanwhile.
func (s *Service) throttleFailed(ctx context.Context, email string, o Origin) {
	if s.Throttle != nil {
		s.Throttle.Failed(context.WithoutCancel(ctx), email, o.IP, o.Device)
	}
}

// trustClient is the step every completed login ends with (register, a
// login of any version, and the completion of a later second factor when
// there is one): the client o has proved it holds the account of email
// with every factor it owed, so its failures are forgotten and the account
// trusts it, by address and by device, in its slow-down, for passwords and
// second factors. It returns the device value the client should keep
// (o.Device when the account trusts it already, else a new one; "" without
// a Throttle). The outcome is recorded even if the request was cancelled
// meanwhile.
func (s *Service) trustClient(ctx context.Context, email string, o Origin) string {
	if s.Throttle == nil {
		return ""
	}
	return s.Throttle.Succeeded(context.WithoutCancel(ctx), email, o.IP, o.Device)
}

// trustPassword is trustClient for a proof of the password or of the
// mailbox alone (a password change, a reset, a re-authentication): the
// client is trusted for passwords only. Its second factors still count
// against the account, so that whoever controls only the mailbox
// gains no unthrottled second-factor guesses by resetting the password.
func (s *Service) trustPassword(ctx context.Context, email string, o Origin) string {
	if s.Throttle == nil {
		return ""
	}
	return s.Throttle.Proved(context.WithoutCancel(ctx), email, o.IP, o.Device)
}
