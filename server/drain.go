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

// acceptDrainWait is how long the closing listener, its accept queue
// empty, waits for one more connection before it closes: a handshake the
// kernel was completing when new ones began to be refused.
const acceptDrainWait = 5 * time.Millisecond

// acceptDrainMax bounds how long the closing listener keeps accepting.
// With new handshakes refused its queue empties at once; where they cannot
// be (not Linux), callers that go on connecting are reset at this bound.
const acceptDrainMax = time.Second

// drainingListener closes without resetting a connection whose handshake
// completed: closing a listening socket resets what its accept queue
// holds. Close first has the kernel refuse new handshakes (their clients
// retry a second later and find the port closed), then Accept takes what
// the queue holds (Serve answers each with Connection: close) until it has
// stayed empty for acceptDrainWait, or for acceptDrainMax at most, and
// only then is the socket closed. Close returns once it is; closed is
// called then, once.
type drainingListener struct {
	*net.TCPListener
	closing  atomic.Bool
	deadline time.Time // set before closing is, read after
	once     sync.Once
	done     chan struct{}
	closed   func()
}

func newDrainingListener(ln *net.TCPListener, closed func()) *drainingListener {
	return &drainingListener{TCPListener: ln, done: make(chan struct{}), closed: closed}
}

// Accept is the listener's Accept until Close; then it takes the queued
// connections and, once the queue is empty, closes the socket and fails
// with net.ErrClosed. A timed-out Accept alone does not show the queue
// empty (on a busy machine this goroutine may run only after its deadline
// has passed), so the kernel's count is read before closing.
func (l *drainingListener) Accept() (net.Conn, error) {
	for {
		if l.closing.Load() {
			wait := time.Now().Add(acceptDrainWait)
			if wait.After(l.deadline) {
				wait = l.deadline
			}
			_ = l.TCPListener.SetDeadline(wait)
		}
		c, err := l.TCPListener.Accept()
		if err == nil || !l.closing.Load() {
			return c, err
		}
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return c, err
		}
		if acceptQueueEmpty(l.TCPListener) || !time.Now().Before(l.deadline) {
			l.shut()
			return nil, net.ErrClosed
		}
	}
}

// Close refuses new handshakes and wakes a waiting Accept, which then
// drains the queue and closes the socket; if nothing is accepting (Serve
// has ended), it closes after acceptDrainMax and a second.
func (l *drainingListener) Close() error {
	if !l.closing.Load() {
		refuseHandshakes(l.TCPListener)
		l.deadline = time.Now().Add(acceptDrainMax)
		l.closing.Store(true)
		_ = l.TCPListener.SetDeadline(time.Now().Add(acceptDrainWait))
	}
	select {
	case <-l.done:
	case <-time.After(acceptDrainMax + time.Second):
		l.shut()
	}
	return nil
}

func (l *drainingListener) shut() {
	l.once.Do(func() {
		_ = l.TCPListener.Close()
		close(l.done)
		if l.closed != nil {
			l.closed()
		}
	})
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
