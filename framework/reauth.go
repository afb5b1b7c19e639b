package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Reauthentication configures the check of the actions whose Spec.Reauth
// asks more of the caller's session than a valid token. The framework
// compares; what it compares comes from the authenticator, which fills
// action.Caller.Assurance from wherever it keeps sessions, and what it
// answers comes from here, so that no service convention (tables, codes,
// methods) is built into the framework.
type Reauthentication struct {
	// MaxAge is how long after its last interactive authentication a
	// session may still run an action declaring action.ReauthRecent.
	MaxAge time.Duration
	// Code is the error a caller of owner type t is refused with (a 403
	// code, by convention).
	Code func(t action.OwnerType) errorcodes.Code
	// Details, when set, returns the members the refusal's body adds,
	// such as how the caller may re-authenticate (see
	// errorcodes.Error.Details); r is the requirement the caller did not
	// meet (action.ReauthFactor asks for a second factor, so a password
	// is no way to meet it). It is called only to refuse; its error is
	// answered like an action's.
	Details func(ctx context.Context, c *action.Caller, r action.Reauth) (any, error)
}

// Assured reports whether a session authenticated as a meets requirement
// r at now: a session whose owner has a second factor must have used it
// (level 2), for ReauthRecent and ReauthFactor its last interactive
// authentication is at most maxAge old, and for ReauthFactor its last
// use of the second factor, when the owner has one, is too.
func Assured(r action.Reauth, a action.Assurance, now time.Time, maxAge time.Duration) bool {
	if r == action.ReauthNone {
		return true
	}
	if a.SecondFactor && a.Level < 2 {
		return false
	}
	if r == action.ReauthLevel {
		return true
	}
	if !recent(a.AuthenticatedAt, now, maxAge) {
		return false
	}
	return r != action.ReauthFactor || !a.SecondFactor || recent(a.FactorAt, now, maxAge)
}

// recent reports whether t is known and at most maxAge before now.
func recent(t, now time.Time, maxAge time.Duration) bool {
	return !t.IsZero() && now.Sub(t) <= maxAge
}

// checkReauth refuses a caller whose session does not meet the action's
// Spec.Reauth, before the action runs.
func (f *Framework) checkReauth(ctx context.Context, spec action.Spec, c *action.Caller) error {
	if spec.Reauth == action.ReauthNone || c == nil {
		return nil
	}
	r := f.cfg.Reauthentication
	if Assured(spec.Reauth, c.Assurance, f.cfg.Now(), r.MaxAge) {
		return nil
	}
	e := r.Code(c.Type).New()
	if r.Details != nil {
		d, err := r.Details(ctx, c, spec.Reauth)
		if err != nil {
			return err
		}
		e.Details = d
	}
	return e
}

// checkReauthSpec refuses, at registration, a requirement the framework
// could not check: one on an action that is not for an owner, or one
// without a Reauthentication configured.
func checkReauthSpec(s action.Spec, r *Reauthentication) {
	switch {
	case s.Reauth == action.ReauthNone:
	case s.Reauth > action.ReauthFactor:
		panic(fmt.Sprintf("framework: %s: unknown reauthentication requirement %d", s.Name, s.Reauth))
	case s.Auth.Kind != action.KindOwner:
		panic(fmt.Sprintf("framework: %s: a reauthentication requirement needs an owner action", s.Name))
	case r == nil || r.Code == nil:
		panic(fmt.Sprintf("framework: %s: a reauthentication requirement needs Config.Reauthentication", s.Name))
	}
}

// reauthName names a requirement in the API document.
func reauthName(r action.Reauth) string {
	switch r {
	case action.ReauthLevel:
		return "second-factor"
	case action.ReauthRecent:
		return "recent"
	case action.ReauthFactor:
		return "recent-second-factor"
	}
	return ""
}
