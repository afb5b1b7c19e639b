package accounts_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
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
