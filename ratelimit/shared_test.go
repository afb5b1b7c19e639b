package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/testclock"
)

// newShared returns a Shared without a background loop (the test syncs),
// closed when the test ends.
func newShared(tb testing.TB, cfg SharedConfig) *Shared {
	tb.Helper()
	cfg.SyncInterval = -1
	s := NewShared(cfg)
	tb.Cleanup(s.Close)
	return s
}

// twoShared returns two instances on one Redis namespace with one clock,
// as two servers of a deployment, and that namespace's key prefix.
func twoShared(t *testing.T) (a, b *Shared, clock *testclock.Clock, prefix string) {
	t.Helper()
	clock, prefix = newFakeClock(), keyPrefix(t)
	pool := redisPool(t)
	a = newShared(t, SharedConfig{Pool: pool, Prefix: prefix, Now: clock.Now})
	b = newShared(t, SharedConfig{Pool: pool, Prefix: prefix, Now: clock.Now})
	return a, b, clock, prefix
}

// syncInTurn syncs each instance in turn, failing t on an error.
func syncInTurn(t *testing.T, instances ...*Shared) {
	t.Helper()
	for _, s := range instances {
		if err := s.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func admitted(s *Shared, key string, limit, n int) int {
	got := 0
	for range n {
		if s.Allow(key, limit, time.Minute).Allowed {
			got++
		}
	}
	return got
}

func TestSharedDecidesInProcess(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := newShared(t, SharedConfig{Now: clock.Now})
	d := s.Allow("ip:a", 3, time.Minute)
	if !d.Allowed || d.Remaining != 2 || d.Limit != 3 || d.RetryAfter != time.Minute {
		t.Fatalf("first hit: %+v", d)
	}
	s.Allow("ip:a", 3, time.Minute)
	s.Allow("ip:a", 3, time.Minute)
	d = s.Allow("ip:a", 3, time.Minute)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter != time.Minute {
		t.Fatalf("fourth hit: %+v", d)
	}
	if !s.Allow("ip:b", 3, time.Minute).Allowed {
		t.Fatal("another key shares the budget")
	}
	clock.Advance(30 * time.Second)
	if d := s.Allow("ip:a", 3, time.Minute); d.Allowed || d.RetryAfter != 30*time.Second {
		t.Fatalf("mid-window: %+v", d)
	}
	clock.Advance(30 * time.Second)
	if !s.Allow("ip:a", 3, time.Minute).Allowed {
		t.Fatal("a new window did not reset the count")
	}
	if s.Allow("ip:z", 0, time.Minute).Allowed {
		t.Fatal("a zero limit admitted a hit")
	}
}

// TestSharedTwoInstances is the overshoot bound in its simplest form: an
// instance admits hits the other has not told it of only until its next
// sync after the other's.
func TestSharedTwoInstances(t *testing.T) {
	t.Parallel()
	a, b, clock, prefix := twoShared(t)
	if got := admitted(a, "k", 10, 15); got != 10 {
		t.Fatalf("a admitted %d of 15, want 10", got)
	}
	// b has not heard of a's hits: it admits, in process, until it syncs.
	if got := admitted(b, "k", 10, 3); got != 3 {
		t.Fatalf("b admitted %d before any sync, want 3", got)
	}
	syncInTurn(t, a, b, a)
	if got := admitted(b, "k", 10, 5) + admitted(a, "k", 10, 5); got != 0 {
		t.Fatalf("after the syncs %d more were admitted", got)
	}
	n, err := redis.Int(doRedis(t, "GET", fmt.Sprintf("%sk:60000:%d", prefix, clock.Now().UnixNano()/int64(time.Minute))))
	if err != nil || n != 13 {
		t.Fatalf("shared count = %d (%v), want the 13 admitted", n, err)
	}
	// A new window starts from zero on both.
	clock.Advance(time.Minute)
	if got := admitted(b, "k", 10, 1); got != 1 {
		t.Fatal("the next window is still full")
	}
}

// TestSharedIdleInstanceLearns is the sequence A, B, A, B with a limit of
// 4 and B syncing first: B reads a total of 2, then A adds its hits. B gets
// no new hit on the key, yet its next sync must read the total of 4, so
// that neither instance admits a fifth.
func TestSharedIdleInstanceLearns(t *testing.T) {
	t.Parallel()
	a, b, _, _ := twoShared(t)
	for i, s := range []*Shared{a, b, a, b} {
		if !s.Allow("k", 4, time.Minute).Allowed {
			t.Fatalf("hit %d refused", i+1)
		}
	}
	syncInTurn(t, b, a, b) // b's second sync has nothing to send
	for name, s := range map[string]*Shared{"a": a, "b": b} {
		if d := s.Allow("k", 4, time.Minute); d.Allowed {
			t.Errorf("%s admitted a fifth hit of 4 (%+v)", name, d)
		}
	}
}

// TestSharedIdleInstanceLearnsInBackground is the same with the background
// loops: B sends its two hits and goes idle, A's two reach Redis after,
// and once a sync of B has started after that, B refuses. It waits for the
// syncs themselves (their count), not for time.
func TestSharedIdleInstanceLearnsInBackground(t *testing.T) {
	t.Parallel()
	pool, prefix := redisPool(t), keyPrefix(t)
	cfg := SharedConfig{Pool: pool, Prefix: prefix, SyncInterval: 20 * time.Millisecond}
	a, b := NewShared(cfg), NewShared(cfg)
	defer a.Close()
	defer b.Close()
	// An hour's window, so that the test does not straddle a window's end.
	hit := func(s *Shared) bool { return s.Allow("k", 4, time.Hour).Allowed }
	if !hit(b) || !hit(b) {
		t.Fatal("b refused one of its first two hits")
	}
	// Each wait for two syncs sees one that started after the call end.
	waitSyncs(t, b, 2) // b has sent its hits and is now idle on the key
	if !hit(a) || !hit(a) {
		t.Fatal("a refused one of its two hits after b's sync")
	}
	waitSyncs(t, a, 2) // a's hits are in Redis
	waitSyncs(t, b, 2) // a sync of b that started after that has ended
	if hit(b) {
		t.Fatal("the idle instance admitted a fifth hit of 4: it never read the shared total back")
	}
}

// waitSyncs waits until s has completed n more syncs than when called.
func waitSyncs(t *testing.T, s *Shared, n int64) {
	t.Helper()
	want := s.syncs.Load() + n
	poll.Until(t, 10*time.Second, fmt.Sprintf("%d syncs", n), func() bool { return s.syncs.Load() >= want })
}

// TestSharedRedisDown keeps counting in process while Redis fails, logs
// once each way, and adds the hits counted meanwhile when Redis is back.
func TestSharedRedisDown(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	prefix := keyPrefix(t)
	var dead atomic.Bool
	dead.Store(true)
	pool := newPool(t, func(ctx context.Context) (redis.Conn, error) {
		if dead.Load() {
			return dialDead(ctx)
		}
		return dialRedis(ctx)
	})
	pool.MaxIdle = 0
	logs := &logBuffer{}
	s := newShared(t, SharedConfig{Pool: pool, Prefix: prefix, Now: clock.Now, Logger: logs.logger()})
	if got := admitted(s, "k", 5, 8); got != 5 {
		t.Fatalf("admitted %d of 8 with Redis down, want 5", got)
	}
	for range 3 {
		if err := s.Sync(context.Background()); err == nil {
			t.Fatal("sync succeeded against a dead Redis")
		}
	}
	if n := logs.count("WARN"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs)
	}
	dead.Store(false)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := logs.count("INFO"); n != 1 {
		t.Fatalf("%d info lines, want 1:\n%s", n, logs)
	}
	n, err := redis.Int(doRedis(t, "GET", fmt.Sprintf("%sk:60000:%d", prefix, clock.Now().UnixNano()/int64(time.Minute))))
	if err != nil || n != 5 {
		t.Fatalf("shared count = %d (%v), want 5", n, err)
	}
}

// TestSharedForgetsEndedWindows keeps memory bounded by the active keys.
func TestSharedForgetsEndedWindows(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := newShared(t, SharedConfig{Now: clock.Now})
	for i := range 100 {
		s.Allow(fmt.Sprint("k", i), 10, time.Minute)
	}
	clock.Advance(time.Minute)
	s.Allow("fresh", 10, time.Minute)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range s.shards {
		n += len(s.shards[i].m)
	}
	if n != 1 {
		t.Fatalf("%d entries kept, want 1", n)
	}
}

// TestSharedBackgroundSync needs no Sync call: the loop shares counts.
func TestSharedBackgroundSync(t *testing.T) {
	t.Parallel()
	pool, prefix := redisPool(t), keyPrefix(t)
	a := NewShared(SharedConfig{Pool: pool, Prefix: prefix, SyncInterval: 20 * time.Millisecond})
	defer a.Close()
	b := NewShared(SharedConfig{Pool: pool, Prefix: prefix, SyncInterval: 20 * time.Millisecond})
	defer b.Close()
	admitted(a, "k", 10, 10)
	poll.Until(t, 5*time.Second, "b to learn of a's hits", func() bool { return !b.Allow("k", 10, time.Hour).Allowed })
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.9":               "203.0.113.9",
		"::ffff:203.0.113.9":        "203.0.113.9",
		"2001:db8:1:2:aaaa::1":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff::9": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":           "2001:db8:1:3::/64",
		"fe80::1%eth0":              "fe80::/64",
		"not an address":            "not an address",
	} {
		if got := ClientKey(in, 64); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ClientKey("2001:db8:1:2:aaaa::1", 48); got != "2001:db8:1::/48" {
		t.Errorf("/48: %q", got)
	}
}
