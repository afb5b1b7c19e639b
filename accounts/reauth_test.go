package accounts_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestReauthenticate: a password re-authentication refreshes the
// session's authentication time and leaves its level; a second factor
// also raises a level-1 session to 2 with its method added, and its code
// is spent. Wrong proofs are each method's error and change nothing. The
// methods offered are the password, then the second factors, or the
// factors alone when only a factor will do. Each success is a
// reauthenticated event.
func TestReauthenticate(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	sf := users.SecondFactors
	acc, iss := users.LoggedIn(t, action.Web)
	session := iss.Session.SessionID
	// Each attempt from an address of its own, which the slow-down of its
	// own failures does not stop.
	attempt := 0
	from := func() accounts.Origin {
		attempt++
		o := accountstest.Origin(action.Web)
		o.IP = "2001:db8::" + string(rune('a'+attempt))
		return o
	}
	reauthenticated := func() int {
		n := 0
		for _, typ := range users.EventTypes(t, acc.ID) {
			if typ == models.EventReauthenticated {
				n++
			}
		}
		return n
	}
	if m, err := sf.ReauthMethods(t.Context(), acc.ID, false); err != nil || !slices.Equal(m, []string{accounts.FactorPassword}) {
		t.Errorf("methods without a factor: %v, %v; want [password]", m, err)
	}
	env.Clock.Advance(3 * time.Minute)
	for _, w := range []struct {
		password string
		factor   *accounts.SecondFactor
		want     error
	}{
		{accountstest.Password + "x", nil, accounts.ErrInvalidCredentials},
		{"", &accounts.SecondFactor{Method: accounts.FactorTOTP, Code: "123456"}, accounts.ErrInvalidTOTPCode},
		{"", &accounts.SecondFactor{Method: accounts.FactorWebAuthn, ChallengeID: "c"}, accounts.ErrInvalidWebAuthnResponse},
	} {
		if _, err := sf.Reauthenticate(t.Context(), acc.ID, session, w.password, w.factor, from()); !errors.Is(err, w.want) {
			t.Errorf("%q, %+v: %v, want %v", w.password, w.factor, err, w.want)
		}
	}
	if live := users.Live(t, acc.ID)[0]; !live.AuthenticatedAt.Equal(iss.Session.AuthenticatedAt) || reauthenticated() != 0 {
		t.Errorf("wrong proofs changed the session %+v or recorded an event", live.Assurance)
	}
	env.Clock.Advance(2 * accountstest.SlowDownFirst) // past the slow-down the failures began
	at := env.Clock.Now()
	sess, err := sf.Reauthenticate(t.Context(), acc.ID, session, accountstest.Password, nil, from())
	if err != nil || sess.AuthenticatedAt.Before(at) || sess.AuthenticatedAt.After(env.Clock.Now()) || sess.Level != 1 || sess.SessionID != session {
		t.Fatalf("a password re-authentication: %+v, %v; want authenticated now at level 1", sess, err)
	}
	if n := reauthenticated(); n != 1 {
		t.Errorf("%d reauthenticated events, want 1", n)
	}

	totp := env.WithTOTP(t, users, acc, iss) // the session is at level 2 now
	if m, err := sf.ReauthMethods(t.Context(), acc.ID, true); err != nil ||
		!slices.Equal(slices.Sorted(slices.Values(m)), []string{accounts.FactorRecoveryCode, accounts.FactorTOTP}) {
		t.Errorf("factor-only methods with TOTP: %v, %v; want totp and recovery_code", m, err)
	}
	env.Clock.Advance(3 * time.Minute)
	if sess, err = sf.Reauthenticate(t.Context(), acc.ID, session, accountstest.Password, nil, from()); err != nil || sess.Level != 2 {
		t.Errorf("a password at level 2: %+v, %v; want the level kept", sess, err)
	}
	// A session of this owner below level 2 (one that predates the
	// factor): a password brings it no further, a second factor does.
	if _, err := env.DB.ExecContext(t.Context(), `UPDATE user_sessions SET aal = 1, auth_methods = '{pwd}' WHERE user_id = $1 AND revoked_at IS NULL`, acc.ID); err != nil {
		t.Fatal(err)
	}
	if sess, err = sf.Reauthenticate(t.Context(), acc.ID, session, accountstest.Password, nil, from()); err != nil || sess.Level != 1 {
		t.Errorf("a password at level 1: %+v, %v; want level 1 still", sess, err)
	}
	code := &accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())}
	at = env.Clock.Now()
	sess, err = sf.Reauthenticate(t.Context(), acc.ID, session, "", code, from())
	if err != nil || sess.Level != 2 || !slices.Equal(sess.Methods, []string{models.MethodPassword, models.MethodTOTP}) ||
		sess.FactorAt == nil || sess.FactorAt.Before(at) {
		t.Fatalf("a TOTP re-authentication: %+v, %v; want level 2 with pwd, otp", sess, err)
	}
	if live := users.Live(t, acc.ID); len(live) != 1 || live[0].Level != 2 {
		t.Errorf("the stored session %+v, want level 2", live)
	}
	// The same code again is a replay.
	if _, err := sf.Reauthenticate(t.Context(), acc.ID, session, "", code, from()); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
		t.Errorf("the same code again: %v, want ErrInvalidTOTPCode", err)
	}
	if n := reauthenticated(); n != 4 {
		t.Errorf("%d reauthenticated events, want 4", n)
	}
}
