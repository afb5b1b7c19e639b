package accounts_test

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/mail"
)

// TestMFABudgetExactUnderConcurrency: wrong codes sent at once while the
// account is one failure short of the limit are all judged against the
// count as the owner's lock leaves it: exactly one is counted
// (ErrInvalidTOTPCode) and every other is ErrTooManyMFAFailures, the
// answer a right code gets past the limit, so no guess beyond the limit
// is told apart. Several rounds, each from one short of the limit.
func TestMFABudgetExactUnderConcurrency(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, iss := users.LoggedIn(t, action.Web)
	session := env.WithTOTP(t, users, acc, iss).Issued.Session.SessionID
	const parallel = 12
	for round := range 3 { // 36 failures: under the account-wide slow-down's 50
		users.SetFailedFactors(t, acc.ID, accounts.MFAFailureLimit-1)
		errs := make([]error, parallel)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range parallel {
			// Each from an address of its own: one client's own failures
			// would soon slow it down.
			o := accountstest.Origin(action.Web)
			o.IP = fmt.Sprintf("198.51.100.%d", round*parallel+i+1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = users.SecondFactors.Reauthenticate(t.Context(), acc.ID, session, "",
					&accounts.SecondFactor{Method: accounts.FactorTOTP, Code: "000000"}, o)
			}()
		}
		close(start)
		wg.Wait()
		counts := map[string]int{}
		for _, err := range errs {
			switch {
			case errors.Is(err, accounts.ErrInvalidTOTPCode):
				counts["invalid"]++
			case errors.Is(err, accounts.ErrTooManyMFAFailures):
				counts["stopped"]++
			default:
				counts[fmt.Sprint(err)]++
			}
		}
		if want := map[string]int{"invalid": 1, "stopped": parallel - 1}; !maps.Equal(counts, want) {
			t.Errorf("round %d: answers %v, want %v", round, counts, want)
		}
		if n := users.FailedFactors(t, acc.ID); n != accounts.MFAFailureLimit {
			t.Errorf("round %d: %d failures counted, want %d", round, n, accounts.MFAFailureLimit)
		}
	}
}

// TestMFAFailureNotice: the tenth wrong second factor in a row (at the
// second step of a login or in a re-authentication) mails the owner a
// notice without a link; more failures that day mail nothing, a failure a
// day later mails again, and a right code starts the count over.
func TestMFAFailureNotice(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	session := totp.Issued.Session.SessionID
	wrong := &accounts.SecondFactor{Method: accounts.FactorTOTP, Code: "000000"}
	attempts := 0
	// from is a client of its own for each attempt, which the slow-down
	// of its own failures does not stop.
	from := func() accounts.Origin {
		attempts++
		o := accountstest.Origin(action.Web)
		o.IP = fmt.Sprintf("198.51.100.%d", attempts)
		return o
	}
	login := func(n int) {
		t.Helper()
		for range n {
			o := from()
			if _, err := users.SecondFactors.Verify(t.Context(), users.FirstStep(t, acc, o), *wrong, o); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
				t.Fatalf("a wrong code at the second step: %v", err)
			}
		}
	}
	notices := func() []mail.Message {
		var out []mail.Message
		for _, m := range env.Mails(t, acc.Email) {
			if m.Kind == mail.MFAFailures {
				out = append(out, m)
			}
		}
		return out
	}
	for range 2 {
		if _, err := users.SecondFactors.Reauthenticate(t.Context(), acc.ID, session, "", wrong, from()); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
			t.Fatalf("a wrong code in a re-authentication: %v", err)
		}
	}
	login(7)
	if n := len(notices()); n != 0 {
		t.Fatalf("%d notices after 9 failures, want none", n)
	}
	login(1)
	if got := notices(); len(got) != 1 || got[0].Link != "" || got[0].To != acc.Email {
		t.Fatalf("notices after 10 failures: %+v, want one without a link", got)
	}
	login(5)
	if n := len(notices()); n != 1 {
		t.Errorf("%d notices after 15 failures in a day, want 1", n)
	}
	env.Clock.Advance(24 * time.Hour)
	login(1)
	if n := len(notices()); n != 2 {
		t.Errorf("%d notices after a failure a day later, want 2", n)
	}
	if n := users.FailedFactors(t, acc.ID); n != 16 {
		t.Errorf("%d failures counted, want 16", n)
	}
	o := from()
	right := accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())}
	if _, err := users.SecondFactors.Verify(t.Context(), users.FirstStep(t, acc, o), right, o); err != nil {
		t.Fatalf("the right code: %v", err)
	}
	if n := users.FailedFactors(t, acc.ID); n != 0 {
		t.Errorf("%d failures counted after a right code, want 0", n)
	}
}
