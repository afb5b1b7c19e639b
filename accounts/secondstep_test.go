package accounts_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestVerifyRace: ten parallel second steps complete exactly one login,
// round after round: with one TOTP code on ten challenges (its step is
// accepted once), and with ten different recovery codes on one challenge
// (the challenge completes once). The others are a wrong code or a spent
// handle.
func TestVerifyRace(t *testing.T) {
	env := newEnv(t)
	users := env.NewService(t, accounts.Users)
	users.MFA.MaxAttempts = 100 // the losers of a round must not burn the challenge
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	const parallel, rounds = 10, 8
	// Each attempt from an address of its own, so that the per-account
	// slow-down (which wrong codes feed) slows none of them.
	from := func(round, i int) accounts.Origin {
		o := accountstest.Origin(action.Web)
		o.IP = fmt.Sprintf("2001:db8:%d:%d::1", round, i)
		return o
	}
	for round := range rounds {
		env.Clock.Advance(30 * time.Second)
		shared := round%2 == 1
		tokens, factors := make([]string, parallel), make([]accounts.SecondFactor, parallel)
		if shared {
			fresh, err := users.SecondFactors.RegenerateRecoveryCodes(t.Context(), acc.ID, from(round, 0))
			if err != nil {
				t.Fatal(err)
			}
			token := users.FirstStep(t, acc, from(round, 0))
			for i := range parallel {
				tokens[i], factors[i] = token, accounts.SecondFactor{Method: accounts.FactorRecoveryCode, Code: fresh[i]}
			}
		} else {
			code := accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())
			for i := range parallel {
				tokens[i], factors[i] = users.FirstStep(t, acc, from(round, i)), accounts.SecondFactor{Method: accounts.FactorTOTP, Code: code}
			}
		}
		errs := make([]error, parallel)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = users.SecondFactors.Verify(t.Context(), tokens[i], factors[i], from(round, i))
			}()
		}
		close(start)
		wg.Wait()
		completed := 0
		for _, err := range errs {
			switch {
			case err == nil:
				completed++
			case errors.Is(err, accounts.ErrInvalidTOTPCode), errors.Is(err, accounts.ErrInvalidMFAToken):
			default:
				t.Errorf("round %d: %v", round, err)
			}
		}
		if completed != 1 {
			t.Fatalf("round %d (shared challenge %v): %d logins completed, want exactly 1", round, shared, completed)
		}
	}
}

// loginTrace is what a login may change of its owner.
type loginTrace struct{ sessions, loginCount, logins int }

// traceOf reads the loginTrace of acc.
func traceOf(t *testing.T, users *accountstest.Service, acc *models.Account) loginTrace {
	t.Helper()
	tr := loginTrace{sessions: len(users.SessionsOf(t, acc.ID)), loginCount: int(users.Reload(t, acc.ID).LoginCount)}
	for _, typ := range users.EventTypes(t, acc.ID) {
		if typ == models.EventLogin {
			tr.logins++
		}
	}
	return tr
}

// TestVerifyRefusals: a malformed or unknown handle is ErrInvalidMFAToken;
// a wrong factor of each method is its own error, counts an attempt of
// the challenge and an mfa_challenge_failed event and changes nothing
// else; the fifth wrong factor burns the challenge, so that the right
// code no longer completes it; and an expired challenge is
// ErrInvalidMFAToken without an attempt counted.
func TestVerifyRefusals(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	sf := users.SecondFactors
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	// Wrong factors slow the account down for their client: each attempt
	// comes from an address of its own.
	attempt := 0
	from := func() accounts.Origin {
		attempt++
		o := accountstest.Origin(action.Web)
		o.IP = fmt.Sprintf("198.51.100.%d", attempt)
		return o
	}
	right := func() accounts.SecondFactor {
		return accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())}
	}
	token := users.FirstStep(t, acc, from())
	for _, bad := range []string{"abc", strings.ToUpper(token), token + "0", strings.Repeat("0", 64)} {
		if _, err := sf.Verify(t.Context(), bad, right(), from()); !errors.Is(err, accounts.ErrInvalidMFAToken) {
			t.Errorf("handle %q: %v, want ErrInvalidMFAToken", bad, err)
		}
	}
	before := traceOf(t, users, acc)
	wrong := []struct {
		factor accounts.SecondFactor
		want   error
	}{
		{accounts.SecondFactor{Method: accounts.FactorTOTP, Code: "abcdef"}, accounts.ErrInvalidTOTPCode},
		{accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, totp.Secret, env.Clock.Now().Add(-2*time.Minute))},
			accounts.ErrInvalidTOTPCode},
		{accounts.SecondFactor{Method: accounts.FactorRecoveryCode, Code: "not-a-code"}, accounts.ErrInvalidRecoveryCode},
		{accounts.SecondFactor{Method: accounts.FactorWebAuthn}, accounts.ErrInvalidWebAuthnResponse},
	}
	for i, w := range wrong {
		if _, err := sf.Verify(t.Context(), token, w.factor, from()); !errors.Is(err, w.want) {
			t.Errorf("%+v: %v, want %v", w.factor, err, w.want)
		}
		if attempts, used := users.Challenge(t, token); attempts != i+1 || used {
			t.Fatalf("after %d wrong factors: attempts %d, used %v", i+1, attempts, used)
		}
	}
	if after := traceOf(t, users, acc); after != before {
		t.Errorf("wrong factors changed %+v into %+v", before, after)
	}
	failed := 0
	for _, typ := range users.EventTypes(t, acc.ID) {
		if typ == models.EventMFAChallengeFailed {
			failed++
		}
	}
	if failed != len(wrong) {
		t.Errorf("%d mfa_challenge_failed events, want %d", failed, len(wrong))
	}
	// The fifth wrong code burns it: the right one no longer works.
	if _, err := sf.Verify(t.Context(), token, accounts.SecondFactor{Method: accounts.FactorTOTP, Code: "000000"}, from()); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
		t.Errorf("the fifth wrong code: %v, want ErrInvalidTOTPCode", err)
	}
	if _, err := sf.Verify(t.Context(), token, right(), from()); !errors.Is(err, accounts.ErrInvalidMFAToken) {
		t.Errorf("the right code on a burnt challenge: %v, want ErrInvalidMFAToken", err)
	}
	// An expired challenge.
	token = users.FirstStep(t, acc, from())
	env.Clock.Advance(users.MFA.ChallengeTTL + time.Second)
	if _, err := sf.Verify(t.Context(), token, right(), from()); !errors.Is(err, accounts.ErrInvalidMFAToken) {
		t.Errorf("an expired challenge: %v, want ErrInvalidMFAToken", err)
	}
	if attempts, _ := users.Challenge(t, token); attempts != 0 {
		t.Errorf("an expired challenge counted %d attempts", attempts)
	}
	if _, err := sf.Verify(t.Context(), users.FirstStep(t, acc, from()), right(), from()); err != nil {
		t.Errorf("a fresh challenge with the right code: %v", err)
	}
}

// TestRecoveryCodes: a recovery code completes a login once, whatever its
// case and separators (the session's methods pwd, rcv; nine left); a new
// set voids the old one; the database holds neither the TOTP secret nor
// a code in plain text.
func TestRecoveryCodes(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	sf := users.SecondFactors
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	codes := totp.RecoveryCodes
	recovery := func(code string) accounts.SecondFactor {
		return accounts.SecondFactor{Method: accounts.FactorRecoveryCode, Code: code}
	}
	typed := strings.ToLower(strings.ReplaceAll(codes[3], "-", " "))
	done, err := sf.Verify(t.Context(), users.FirstStep(t, acc, o), recovery(typed), o)
	if err != nil {
		t.Fatalf("a recovery code typed %q: %v", typed, err)
	}
	if done.RecoveryCodesRemaining == nil || *done.RecoveryCodesRemaining != 9 {
		t.Errorf("recovery codes remaining %v, want 9", done.RecoveryCodesRemaining)
	}
	if m := done.Session.Methods; !slices.Equal(m, []string{models.MethodPassword, models.MethodRecoveryCode}) {
		t.Errorf("session methods %v, want pwd, rcv", m)
	}
	token := users.FirstStep(t, acc, o)
	if _, err := sf.Verify(t.Context(), token, recovery(codes[3]), o); !errors.Is(err, accounts.ErrInvalidRecoveryCode) {
		t.Errorf("a used recovery code: %v, want ErrInvalidRecoveryCode", err)
	}
	count := func(typ string) int {
		n := 0
		for _, got := range users.EventTypes(t, acc.ID) {
			if got == typ {
				n++
			}
		}
		return n
	}
	if n := count(models.EventRecoveryCodeUsed); n != 1 {
		t.Errorf("%d recovery_code_used events, want 1", n)
	}
	env.NoSecretsStored(t, append([]string{totp.Secret}, codes...))

	fresh, err := sf.RegenerateRecoveryCodes(t.Context(), acc.ID, o)
	if err != nil || len(fresh) != 10 || slices.Contains(fresh, codes[0]) {
		t.Fatalf("new set %v, %v", fresh, err)
	}
	if _, err := sf.Verify(t.Context(), token, recovery(codes[0]), o); !errors.Is(err, accounts.ErrInvalidRecoveryCode) {
		t.Errorf("a code of the old set: %v, want ErrInvalidRecoveryCode", err)
	}
	if _, err := sf.Verify(t.Context(), token, recovery(fresh[0]), o); err != nil {
		t.Errorf("a code of the new set: %v", err)
	}
	if n := count(models.EventRecoveryCodesRegenerated); n != 1 {
		t.Errorf("%d recovery_codes_regenerated events, want 1", n)
	}
	env.NoSecretsStored(t, fresh)
}
