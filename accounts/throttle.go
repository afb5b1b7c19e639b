package accounts

import "context"

// The per-account slow-down of password guessing (the Service's Throttle)
// is consulted by every action that checks a password of an account: a
// login of any version, and a password change's current password.

// slowedDown asks the Throttle whether an attempt on email from o must
// wait, and refuses it with a *SlowedDownError if so; a refused attempt is
// not evaluated and counts as no failure.
func (s *Service) slowedDown(ctx context.Context, email string, o Origin) error {
	if s.Throttle == nil {
		return nil
	}
	if wait := s.Throttle.Wait(ctx, email, o.IP); wait > 0 {
		return &SlowedDownError{RetryAfter: wait}
	}
	return nil
}

// throttleFailed reports a wrong password (or an unknown e-mail) for email
// from o, even if the request was cancelled meanwhile.
func (s *Service) throttleFailed(ctx context.Context, email string, o Origin) {
	if s.Throttle != nil {
		s.Throttle.Failed(context.WithoutCancel(ctx), email, o.IP)
	}
}

// throttleSucceeded reports a right password for email from o, even if
// the request was cancelled meanwhile.
func (s *Service) throttleSucceeded(ctx context.Context, email string, o Origin) {
	if s.Throttle != nil {
		s.Throttle.Succeeded(context.WithoutCancel(ctx), email, o.IP)
	}
}
