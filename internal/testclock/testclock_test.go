package testclock

import (
	"sync"
	"testing"
	"time"
)

// TestClock: a Clock reads its start until moved, and each Advance adds to
// it, also from several goroutines at once.
func TestClock(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	c := At(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("got %v, want %v", got, t0)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Advance(time.Second); _ = c.Now() })
	}
	wg.Wait()
	if got, want := c.Now(), t0.Add(10*time.Second); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestOffset: an Offset reads the real time in UTC to the microsecond, and
// the real time plus every step it was moved.
func TestOffset(t *testing.T) {
	var c Offset
	before := time.Now().Truncate(time.Microsecond)
	got := c.Now()
	if got.Location() != time.UTC || got.Nanosecond()%1000 != 0 || got.Before(before) || got.After(time.Now()) {
		t.Fatalf("got %v, want the real time in UTC to the microsecond", got)
	}
	c.Advance(time.Hour)
	c.Advance(time.Hour)
	if d := c.Now().Sub(time.Now()); d < 2*time.Hour-time.Minute || d > 2*time.Hour {
		t.Fatalf("moved by %v, want 2h", d)
	}
}
