package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/poll"
)

// TestSlowDownDeviceValues: a success hands out a new device value unless
// the one presented is trusted by the account already; trust is per
// account, and slides with each success.
func TestSlowDownDeviceValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := newSlowDown(t, clock)
	const email, ip = "ada@example.com", "203.0.113.9"
	d := s.Succeeded(ctx, email, ip, "")
	if !WellFormedDevice(d) {
		t.Fatalf("new device %q", d)
	}
	if got := s.Succeeded(ctx, email, ip, d); got != d {
		t.Errorf("a trusted device was replaced: %s, want %s", got, d)
	}
	// Another account does not trust it: it gets a value of its own.
	other := s.Succeeded(ctx, "bob@example.com", ip, d)
	if other == d || !WellFormedDevice(other) {
		t.Errorf("another account adopted the device: %s", other)
	}
	for _, bad := range []string{NewDevice(), "", "ABCD", d + "0"} {
		if got := s.Succeeded(ctx, email, ip, bad); got == bad || !WellFormedDevice(got) {
			t.Errorf("an untrusted device %q was adopted or answered %q", bad, got)
		}
	}
	// Each success extends the trust to a full TrustFor (the key's time to
	// live: Redis expires it). Shorten what is left, as if most of it had
	// passed, and log in again.
	trust := s.accountKey(email) + "d:" + deviceKey(d)
	if _, err := doRedis(t, "PEXPIRE", trust, 60000); err != nil {
		t.Fatal(err)
	}
	if got := s.Succeeded(ctx, email, ip, d); got != d {
		t.Fatalf("replaced by %s", got)
	}
	if ttl, err := redis.Int64(doRedis(t, "PTTL", trust)); err != nil || ttl < (DefaultTrustFor-time.Hour).Milliseconds() {
		t.Fatalf("the device's trust lasts %d ms more (%v), want about %v", ttl, err, DefaultTrustFor)
	}
	// Once it expires, the device is a stranger: a new value is handed out.
	if _, err := doRedis(t, "PEXPIRE", trust, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the trust key to expire", func() bool {
		n, _ := redis.Int(doRedis(t, "EXISTS", trust))
		return n == 0
	})
	if got := s.Succeeded(ctx, email, ip, d); got == d {
		t.Errorf("an expired device is still trusted")
	}
}

// TestSlowDownTrustedDevice: once an account is slowed down by failures
// from many addresses, its trusted device waits nowhere, from any address,
// not even from an address whose own failures slow it; its own failures
// still slow it.
func TestSlowDownTrustedDevice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := newSlowDown(t, clock)
	const email = "victim@example.com"
	d := s.Succeeded(ctx, email, "203.0.113.1", "")
	const shared = "192.0.2.50" // the device's network, an attacker's too
	for range 5 {
		s.Failed(ctx, email, shared, "")
	}
	for i := range 60 {
		ip := fmt.Sprintf("198.51.100.%d", i)
		if s.Wait(ctx, email, ip, "") == 0 {
			s.Failed(ctx, email, ip, "")
		}
	}
	for _, ip := range []string{"192.0.2.1", shared} {
		if w := s.Wait(ctx, email, ip, ""); w == 0 {
			t.Errorf("an untrusted client at %s is not slowed", ip)
		}
		if w := s.Wait(ctx, email, ip, NewDevice()); w == 0 {
			t.Errorf("an unknown device at %s is not slowed", ip)
		}
		for range 3 { // no slot to wait for, however many attempts
			if w := s.Wait(ctx, email, ip, d); w != 0 {
				t.Fatalf("the trusted device at %s waits %v", ip, w)
			}
		}
	}
	// The device's own failures count on the device.
	for range 5 {
		s.Failed(ctx, email, "192.0.2.1", d)
	}
	if w := s.Wait(ctx, email, "192.0.2.99", d); w != time.Second {
		t.Errorf("after its own 5 failures the device waits %v, want 1s", w)
	}
	clock.Advance(time.Second)
	if w := s.Wait(ctx, email, "192.0.2.99", d); w != 0 {
		t.Errorf("after the delay: %v", w)
	}
	if got := s.Succeeded(ctx, email, "192.0.2.99", d); got != d {
		t.Fatalf("the device was replaced: %s", got)
	}
	if w := s.Wait(ctx, email, "192.0.2.99", d); w != 0 {
		t.Errorf("a success resets the device's pair: still waits %v", w)
	}
}

func TestWellFormedDevice(t *testing.T) {
	d := NewDevice()
	if !WellFormedDevice(d) || NewDevice() == d {
		t.Fatalf("NewDevice: %q", d)
	}
	for _, bad := range []string{"", d[:63], d + "a", "G" + d[1:], "A" + d[1:], " " + d[1:]} {
		if WellFormedDevice(bad) {
			t.Errorf("%q is well formed", bad)
		}
	}
}
