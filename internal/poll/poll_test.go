package poll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/testenv"
)

// TestUntilReturnsOnceTheConditionHolds: the condition is asked again
// until it holds, and nothing fails.
func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	_, fatal := testenv.Record(t, func(tb testing.TB) {
		poll.Until(tb, 10*time.Second, "the third call", func() bool { calls++; return calls == 3 })
	})
	if fatal != "" || calls != 3 {
		t.Errorf("got %d calls and failure %q, want 3 calls and none", calls, fatal)
	}
}

// TestUntilFailsAtTheDeadline: a condition that never holds fails the
// test once the timeout has passed, naming what was awaited.
func TestUntilFailsAtTheDeadline(t *testing.T) {
	start := time.Now()
	_, fatal := testenv.Record(t, func(tb testing.TB) {
		poll.Until(tb, 50*time.Millisecond, "a key", func() bool { return false })
	})
	if want := "waited 50ms for a key"; fatal != want {
		t.Errorf("failure %q, want %q", fatal, want)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", waited)
	}
}

// TestUntilWhyNamesTheLastReason: the failure ends with the reason the
// condition gave last.
func TestUntilWhyNamesTheLastReason(t *testing.T) {
	calls := 0
	_, fatal := testenv.Record(t, func(tb testing.TB) {
		poll.UntilWhy(tb, 30*time.Millisecond, "a row", func() (bool, string) {
			calls++
			return false, fmt.Sprintf("%d rows", calls)
		})
	})
	if want := fmt.Sprintf("waited 30ms for a row: %d rows", calls); calls < 2 || fatal != want {
		t.Errorf("failure %q after %d calls, want %q after more than one", fatal, calls, want)
	}
}
