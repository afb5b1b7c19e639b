package accounts_test

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
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
