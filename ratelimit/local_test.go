package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

func TestCapKey(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		name     string
		key      string
		verbatim bool
	}{
		{name: "short", key: "ip:203.0.113.9", verbatim: true},
		{name: "empty", key: "", verbatim: true},
		{name: "exactly max", key: strings.Repeat("x", MaxKeyLength), verbatim: true},
		{name: "one over max", key: strings.Repeat("x", MaxKeyLength+1)},
		{name: "very long", key: strings.Repeat("y", 1<<20)},
		{name: "looks hashed", key: "sha256:0123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capKey(tt.key)
			if tt.verbatim {
				if got != tt.key {
					t.Errorf("got %q, want the key unchanged", got)
				}
				return
			}
			if got == tt.key || !strings.HasPrefix(got, hashedKeyPrefix) || len(got) != 71 {
				t.Errorf("got %q (%d bytes), want a 71-byte sha256 digest", got, len(got))
			}
		})
	}
	if a, b := capKey(long+"1"), capKey(long+"2"); a == b {
		t.Errorf("keys differing in the last byte: got the same digest %q, want different", a)
	}
	if a, b := capKey(long), capKey(long); a != b {
		t.Errorf("same key: got %q and %q, want equal", a, b)
	}
}

func TestLongKeysStayBounded(t *testing.T) {
	t.Parallel()
	huge := "ip:198.51.100.7:/v1/" + strings.Repeat("p", 10_000)
	t.Run("redis", func(t *testing.T) {
		prefix := keyPrefix(t)
		l := newLimiter(t, Config{Pool: redisPool(t), Prefix: prefix, Timeout: slack})
		if d := l.Allow(context.Background(), huge, 5, time.Minute); d.Degraded || d.Remaining != 4 {
			t.Fatalf("got %+v, want a redis decision with remaining 4", d)
		}
		keys := scanKeys(t, prefix)
		want := len(prefix) + 71 + len(":60000")
		if len(keys) != 1 || len(keys[0]) != want {
			t.Errorf("got redis keys %q, want one key of %d bytes", keys, want)
		}
	})
	t.Run("local", func(t *testing.T) {
		l := newLimiter(t, Config{})
		l.Allow(context.Background(), huge, 5, time.Minute)
		for i := range l.local.shards {
			for k := range l.local.shards[i].m {
				if len(k.key) != 71 {
					t.Errorf("got an in-process key of %d bytes, want 71", len(k.key))
				}
			}
		}
	})
}

func TestSweepForgetsExpiredWindows(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Now: clock.Now, SweepInterval: time.Hour})
	ctx := context.Background()
	const short, long = 64 * 600, 10
	for i := range short {
		l.Allow(ctx, "ip:"+strconv.Itoa(i), 1, time.Second)
	}
	for i := range long {
		l.Allow(ctx, "ip:"+strconv.Itoa(i), 1, time.Hour)
	}
	if got := localSize(l); got != short+long {
		t.Fatalf("before sweep: got %d windows, want %d", got, short+long)
	}
	l.local.sweep(clock.Now().UnixNano())
	if got := localSize(l); got != short+long {
		t.Fatalf("sweep before expiry: got %d windows, want %d", got, short+long)
	}
	clock.Advance(time.Second)
	l.local.sweep(clock.Now().UnixNano())
	if got := localSize(l); got != long {
		t.Fatalf("after sweep: got %d windows, want %d", got, long)
	}
	peak := 0
	for i := range l.local.shards {
		peak += l.local.shards[i].peak
	}
	if peak != long {
		t.Errorf("after sweep: got maps sized for %d windows, want %d (reallocated)", peak, long)
	}
	if d := l.Allow(ctx, "ip:0", 1, time.Hour); d.Allowed {
		t.Errorf("unexpired window after sweep: got %+v, want still counted", d)
	}
}

func TestSweeperRunsInBackground(t *testing.T) {
	clock := newFakeClock()
	l := New(Config{Now: clock.Now, SweepInterval: 5 * time.Millisecond})
	defer l.Close()
	for i := range 100 {
		l.Allow(context.Background(), "ip:"+strconv.Itoa(i), 1, time.Second)
	}
	clock.Advance(time.Second)
	poll.UntilWhy(t, 5*time.Second, "the sweeper to remove every window", func() (bool, string) {
		n := localSize(l)
		return n == 0, fmt.Sprintf("%d windows left", n)
	})
	l.Close()
	l.Close() // idempotent
	if d := l.Allow(context.Background(), "k", 1, time.Second); !d.Allowed {
		t.Errorf("after Close: got %+v, want allowed", d)
	}
}
