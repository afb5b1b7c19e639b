package main

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestTOTPCode pins the tool's TOTP arithmetic to the vectors of RFC 6238,
// appendix B (SHA-1, the last six digits).
func TestTOTPCode(t *testing.T) {
	key := []byte("12345678901234567890")
	for unix, want := range map[int64]string{59: "287082", 1111111109: "081804", 1234567890: "005924", 2000000000: "279037"} {
		if got := totpCode(key, unix/30); got != want {
			t.Errorf("T=%d: got %s, want %s", unix, got, want)
		}
	}
}

func TestUsableStep(t *testing.T) {
	at := func(step int64, into time.Duration) time.Time { return time.Unix(step*30, 0).Add(into) }
	tests := []struct {
		name string
		last int64
		now  time.Time
		step int64
		ok   bool
	}{
		{"fresh, early in the step: the previous step", 0, at(100, 2*time.Second), 99, true},
		{"fresh, late in the step: the current one", 0, at(100, 26*time.Second), 100, true},
		{"the previous step used: the current one", 99, at(100, 10*time.Second), 100, true},
		{"the current step used: the next one", 100, at(100, 10*time.Second), 101, true},
		{"the next step used: none left", 101, at(100, 10*time.Second), 102, false},
		{"the next step used, the step moved on: the one after", 101, at(101, time.Second), 102, true},
	}
	for _, tt := range tests {
		step, ok := usableStep(tt.last, tt.now)
		if step != tt.step || ok != tt.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", tt.name, step, ok, tt.step, tt.ok)
		}
	}
}

// TestTOTPPoolLendsEachStepOnce: two users give the window's steps once
// each, least recently used first, and then the pool is spent until the
// step moves on.
func TestTOTPPoolLendsEachStepOnce(t *testing.T) {
	now := time.Unix(100*30+10, 0)
	p := &totpPool{now: func() time.Time { return now }}
	a, b := &totpUser{email: "a", lastStep: 99}, &totpUser{email: "b", lastStep: 99}
	p.put(a)
	p.put(b)
	type lent struct {
		email string
		step  int64
	}
	var got []lent
	for range 4 {
		u, step, err := p.take(context.Background())
		if err != nil {
			t.Fatalf("take %d: %v", len(got)+1, err)
		}
		got = append(got, lent{u.email, step})
		p.put(u)
	}
	want := []lent{{"a", 100}, {"b", 100}, {"a", 101}, {"b", 101}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("lent %v, want %v", got, want)
			break
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no wait for the next step
	if _, _, err := p.take(ctx); !errors.Is(err, errNoFreeUser) {
		t.Errorf("a spent pool: got %v, want errNoFreeUser", err)
	}
	now = now.Add(30 * time.Second)
	if u, step, err := p.take(context.Background()); err != nil || u != a || step != 102 {
		t.Errorf("after the step moved on: got %v, %d, %v; want a, 102", u, step, err)
	}
}

func TestPoolSize(t *testing.T) {
	// 100 hashes a second for 11 s, two logins a user, twice over: 1,100,
	// plus two a virtual user.
	if got := poolSize(100, runConfig{Warmup: time.Second, Duration: 10 * time.Second}, 64); got != 1100+128 {
		t.Errorf("poolSize = %d, want %d", got, 1100+128)
	}
}
