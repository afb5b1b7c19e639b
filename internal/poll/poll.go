// Package poll waits, in a test, for a condition that nothing announces: a
// row another goroutine writes, a key a worker sets, a session that starts
// to wait for a lock. It asks again and again until the condition holds or
// a deadline passes, and then fails the test naming what it waited for.
//
// Every package's tests use it instead of a loop of their own, so that
// each wait has a deadline and its failure says what was awaited.
package poll

import (
	"testing"
	"time"
)

// The pause between two calls of a condition starts at firstPause and
// doubles up to maxPause: a condition that holds soon is seen soon, and
// one that takes seconds is not asked hundreds of times a second.
const (
	firstPause = time.Millisecond
	maxPause   = 20 * time.Millisecond
)

// Until calls cond until it returns true, and fails t with Fatalf when
// timeout passes first: "waited 10s for <what>". It must be called from
// the test's goroutine.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	UntilWhy(t, timeout, what, func() (bool, string) { return cond(), "" })
}

// UntilWhy is Until for a condition that says why it does not hold yet:
// the reason it gave last ends the failure message.
func UntilWhy(t testing.TB, timeout time.Duration, what string, cond func() (ok bool, why string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	pause := firstPause
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if why != "" {
				t.Fatalf("waited %v for %s: %s", timeout, what, why)
			}
			t.Fatalf("waited %v for %s", timeout, what)
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}
