package ratelimit

import (
	"context"
	"fmt"
	"testing"
)

// TestSlowDownFactorTrust: while an account is slowed by failures from
// many addresses, a client that only proved the password or the mailbox
// (Proved: a reset) logs in unslowed but its second factors still wait;
// a client that completed a login (Succeeded) waits for neither, by its
// address and by its device, and a device first proved then logged in
// with is trusted for both.
func TestSlowDownFactorTrust(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSlowDown(t, newFakeClock())
	const email = "factor@example.com"
	for i := range 60 {
		ip := fmt.Sprintf("198.51.100.%d", i)
		if s.Wait(ctx, email, ip, "") == 0 {
			s.Failed(ctx, email, ip, "")
		}
	}
	const resetter, owner = "192.0.2.10", "192.0.2.20"
	proved := s.Proved(ctx, email, resetter, "")
	if w := s.Wait(ctx, email, resetter, ""); w != 0 {
		t.Errorf("a password attempt from the resetting address waits %v", w)
	}
	if w := s.Wait(ctx, email, "192.0.2.11", proved); w != 0 {
		t.Errorf("a password attempt from the resetting device waits %v", w)
	}
	for _, c := range []struct{ ip, device string }{{resetter, ""}, {"192.0.2.12", proved}} {
		if w, err := s.CheckFactor(ctx, email, c.ip, c.device); w == 0 || err != nil {
			t.Errorf("a second factor from the proved client %+v: %v, %v; want it slowed", c, w, err)
		}
	}
	device := s.Succeeded(ctx, email, owner, "")
	for _, c := range []struct{ ip, device string }{{owner, ""}, {"192.0.2.21", device}} {
		if w, err := s.CheckFactor(ctx, email, c.ip, c.device); w != 0 || err != nil {
			t.Errorf("a second factor from the logged-in client %+v: %v, %v; want none", c, w, err)
		}
	}
	if got := s.Succeeded(ctx, email, "192.0.2.13", proved); got != proved {
		t.Fatalf("a completed login replaced the proved device with %s", got)
	}
	if w, err := s.CheckFactor(ctx, email, "192.0.2.14", proved); w != 0 || err != nil {
		t.Errorf("a second factor from the device after a completed login: %v, %v; want none", w, err)
	}
}
