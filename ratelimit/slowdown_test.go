package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/internal/testclock"
)

func newSlowDown(t *testing.T, clock *testclock.Clock) *SlowDown {
	t.Helper()
	return NewSlowDown(SlowDownConfig{Pool: redisPool(t), Prefix: keyPrefix(t), Now: clock.Now, Timeout: slack})
}

func TestSlowDownPair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := newSlowDown(t, clock)
	const email, ip = "Ada@Example.com", "203.0.113.9"
	for i := range 5 {
		if w := s.Wait(ctx, email, ip, ""); w != 0 {
			t.Fatalf("attempt %d waits %v", i+1, w)
		}
		s.Failed(ctx, email, ip, "")
	}
	want := time.Second
	for step := range 14 {
		if w := s.Wait(ctx, "ada@example.com", ip, ""); w != want {
			t.Fatalf("step %d: wait %v, want %v", step, w, want)
		}
		// Another client and another e-mail are not slowed.
		if w := s.Wait(ctx, email, "203.0.113.10", ""); w != 0 {
			t.Fatalf("another client waits %v", w)
		}
		clock.Advance(want)
		if w := s.Wait(ctx, email, ip, ""); w != 0 {
			t.Fatalf("step %d: after the delay still waits %v", step, w)
		}
		// The admitted attempt holds the slot until its outcome.
		if w := s.Wait(ctx, email, ip, ""); w != want {
			t.Fatalf("step %d: a concurrent attempt waits %v, want %v", step, w, want)
		}
		s.Failed(ctx, email, ip, "")
		want = min(2*want, 15*time.Minute)
	}
	if want != 15*time.Minute {
		t.Fatalf("the delay did not reach its cap: %v", want)
	}
	clock.Advance(want)
	if w := s.Wait(ctx, email, ip, ""); w != 0 {
		t.Fatalf("after the capped delay: %v", w)
	}
	s.Succeeded(ctx, email, ip, "")
	for i := range 4 {
		if w := s.Wait(ctx, email, ip, ""); w != 0 {
			t.Fatalf("after a success, attempt %d waits %v", i+1, w)
		}
		s.Failed(ctx, email, ip, "")
	}
}

func TestSlowDownAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := newSlowDown(t, clock)
	const email = "victim@example.com"
	// A client that logged in before the attack.
	s.Succeeded(ctx, email, "2001:db8:9::1", "")
	for i := range 50 {
		ip := fmt.Sprintf("198.51.100.%d", i)
		if w := s.Wait(ctx, email, ip, ""); w != 0 {
			t.Fatalf("failure %d waited %v", i+1, w)
		}
		s.Failed(ctx, email, ip, "")
	}
	if w := s.Wait(ctx, email, "192.0.2.1", ""); w != time.Second {
		t.Fatalf("a new client waits %v, want 1s", w)
	}
	// The same /64 as the trusted client is the trusted client.
	if w := s.Wait(ctx, email, "2001:db8:9::77", ""); w != 0 {
		t.Fatalf("the trusted client waits %v", w)
	}
	if w := s.Wait(ctx, "other@example.com", "192.0.2.1", ""); w != 0 {
		t.Fatalf("another account waits %v", w)
	}
	clock.Advance(time.Second)
	if w := s.Wait(ctx, email, "192.0.2.1", ""); w != 0 {
		t.Fatalf("after the delay: %v", w)
	}
	if w := s.Wait(ctx, email, "192.0.2.2", ""); w != time.Second {
		t.Fatalf("the slot of the admitted attempt: %v", w)
	}
	s.Failed(ctx, email, "192.0.2.1", "")
	if w := s.Wait(ctx, email, "192.0.2.3", ""); w != 2*time.Second {
		t.Fatalf("after the 51st failure: %v, want 2s", w)
	}
	// Failures older than the window stop counting: no lock-out for good.
	clock.Advance(2 * time.Hour)
	if w := s.Wait(ctx, email, "192.0.2.3", ""); w != 0 {
		t.Fatalf("two hours later: %v", w)
	}
}

func TestSlowDownFailsOpen(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	s := NewSlowDown(SlowDownConfig{Pool: newPool(t, dialDead), Logger: logs.logger()})
	ctx := context.Background()
	for range 10 {
		s.Failed(ctx, "a@example.com", "203.0.113.1", "")
		if w := s.Wait(ctx, "a@example.com", "203.0.113.1", ""); w != 0 {
			t.Fatalf("waits %v without Redis", w)
		}
	}
	// Without Redis a login still hands out a device value: the presented
	// one if well formed (nothing can be checked), else a new one.
	device := NewDevice()
	if got := s.Succeeded(ctx, "a@example.com", "203.0.113.1", device); got != device {
		t.Errorf("Succeeded without Redis replaced %s by %s", device, got)
	}
	if got := s.Succeeded(ctx, "a@example.com", "203.0.113.1", "bad"); !WellFormedDevice(got) {
		t.Errorf("Succeeded without Redis handed out %q", got)
	}
	if n := logs.count("WARN"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs)
	}
}

// TestSlowDownCheckFailsClosed: CheckFactor answers what Wait does while Redis
// answers, and an error marked unavailable when it does not, where Wait
// lets the attempt through.
func TestSlowDownCheckFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := newSlowDown(t, clock)
	const email, ip = "check@example.com", "203.0.113.40"
	for range 5 {
		if w, err := s.CheckFactor(ctx, email, ip, ""); w != 0 || err != nil {
			t.Fatalf("CheckFactor: %v, %v", w, err)
		}
		s.Failed(ctx, email, ip, "")
	}
	if w, err := s.CheckFactor(ctx, email, ip, ""); w != time.Second || err != nil {
		t.Fatalf("CheckFactor after 5 failures: %v, %v; want the first delay", w, err)
	}
	dead := NewSlowDown(SlowDownConfig{Pool: newPool(t, dialDead), Prefix: keyPrefix(t), Now: clock.Now, Timeout: slack})
	if w := dead.Wait(ctx, email, ip, ""); w != 0 {
		t.Errorf("Wait without Redis: %v, want 0 (open)", w)
	}
	if _, err := dead.CheckFactor(ctx, email, ip, ""); !errors.Is(err, dependency.ErrUnavailable) {
		t.Errorf("CheckFactor without Redis: %v, want an unavailable dependency", err)
	}
}
