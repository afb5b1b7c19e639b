package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// closeWhileDraining answers every request with Connection: close once the
// drain has begun, so that each kept-alive connection is closed by the
// server right after an answer, never while a request may be on its way,
// and its client opens a new connection for the next one (to this instance
// until the listener closes, or to another once the load balancer has seen
// the probes' 503). Protocol upgrades (WebSocket) are left alone.
//
// http.Server.SetKeepAlivesEnabled(false) would do the same for answers but
// also closes every idle connection at once, which races the requests that
// clients are writing on them at that moment: the resets this avoids.
func closeWhileDraining(draining *atomic.Bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if draining.Load() && r.Header.Get("Upgrade") == "" {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// closeNotifyListener calls closed once, after the listener has closed.
type closeNotifyListener struct {
	net.Listener
	once   sync.Once
	closed func()
}

func (l *closeNotifyListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(l.closed)
	return err
}

// connTracker follows the API's connections through http.Server.ConnState.
//
// http.Server.Shutdown drops every request it reads after it was called,
// closing the connection unanswered (the client sees EOF or a reset), even
// on a connection accepted a moment before. So the API does not call it
// while connections are open: it closes the listener itself, lets every
// connection end after its answer (Connection: close), closes those left
// idle, and calls Shutdown only once none remain.
type connTracker struct {
	mu    sync.Mutex
	conns map[net.Conn]connEntry
}

type connEntry struct {
	state http.ConnState
	since time.Time
}

func newConnTracker() *connTracker { return &connTracker{conns: map[net.Conn]connEntry{}} }

func (t *connTracker) hook(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(t.conns, c)
	default:
		t.conns[c] = connEntry{state: st, since: time.Now()}
	}
}

// closeIdle closes the connections idle for at least idleGrace, or opened
// at least newGrace ago without a request, and returns how many remain.
func (t *connTracker) closeIdle(idleGrace, newGrace time.Duration) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for c, e := range t.conns {
		if (e.state == http.StateIdle && now.Sub(e.since) >= idleGrace) ||
			(e.state == http.StateNew && now.Sub(e.since) >= newGrace) {
			_ = c.Close()
			delete(t.conns, c)
		}
	}
	return len(t.conns)
}

// settle waits until every tracked connection has ended, closing idle ones
// as closeIdle does, or until ctx ends.
func (t *connTracker) settle(ctx context.Context, idleGrace, newGrace time.Duration) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for t.closeIdle(idleGrace, newGrace) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}
