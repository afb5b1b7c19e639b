package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

// /ready runs one round of checks at a time and answers from a round at
// most readyMaxAge old: 40 concurrent probes cost one round, a probe within
// readyMaxAge costs none, and one after it starts a new round that sees a
// dependency's change.
func TestReadyChecksSingleFlight(t *testing.T) {
	var rounds atomic.Int32
	release := make(chan struct{})
	var failing atomic.Bool
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	p := &probes{
		checks: map[string]func(context.Context) error{"database": func(ctx context.Context) error {
			if rounds.Add(1) == 1 {
				<-release // hold the first round until every probe is waiting on it
			}
			if failing.Load() {
				return context.DeadlineExceeded
			}
			return nil
		}},
		now: func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock },
	}
	probe := func() int {
		w := httptest.NewRecorder()
		p.ready(w, httptest.NewRequest(http.MethodGet, "/ready", nil))
		return w.Code
	}
	const n = 40
	codes := make(chan int, n)
	for range n {
		go func() { codes <- probe() }()
	}
	// Every probe but the first waits on the round's channel; wait until
	// the first has started the round, then let it finish.
	poll.Until(t, 10*time.Second, "the first probe to start a round", func() bool { return rounds.Load() > 0 })
	close(release)
	for range n {
		if c := <-codes; c != 200 {
			t.Errorf("a probe answered %d", c)
		}
	}
	if got := rounds.Load(); got != 1 {
		t.Errorf("%d concurrent probes ran %d rounds of checks, want 1", n, got)
	}
	failing.Store(true)
	if c := probe(); c != 200 || rounds.Load() != 1 {
		t.Errorf("a probe within readyMaxAge: %d after %d rounds, want the cached 200 after 1", c, rounds.Load())
	}
	clockMu.Lock()
	clock = clock.Add(readyMaxAge)
	clockMu.Unlock()
	if c := probe(); c != 503 || rounds.Load() != 2 {
		t.Errorf("a probe after readyMaxAge: %d after %d rounds, want 503 after 2", c, rounds.Load())
	}
}
