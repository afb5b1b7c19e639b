// Package testenv decides what a test does when something outside the
// project that it needs (PostgreSQL, Redis, node, Chromium) is missing: on
// a developer's machine the test is skipped with a hint, and with CI=true
// it fails, so that a CI run can never pass by skipping.
package testenv

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

// CI reports whether the tests run with CI=true.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing skips t, or fails it when CI=true, because what is unavailable
// (err says why); hint tells a developer how to provide it.
func Missing(t testing.TB, what string, err error, hint string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s is required when CI=true: %v", what, err)
	}
	t.Skipf("%s unavailable, skipping (%s): %v", what, hint, err)
}

// Record runs f with a stand-in for t that records, instead of doing,
// a skip or a fatal failure, and returns their messages ("" for none).
// It lets a harness test check what it does when a service is missing.
func Record(t testing.TB, f func(testing.TB)) (skipped, fatal string) {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.skipped, r.fatal
}

// recorder stands in for a test to observe Skipf and Fatalf, which end the
// calling goroutine like the real ones.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
