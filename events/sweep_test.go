package events

import (
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
)

// sweepEvery is the session sweep of these tests, short so that they wait
// little; the production default is a minute.
const sweepEvery = 100 * time.Millisecond

// TestSweepDisconnectsLostEnds ends sessions without sending any disconnect
// message, as when that message was lost: an ended session, and a user
// whose token version changed. The periodic sweep must disconnect their
// sockets, over both transports, and leave the live session's socket alone,
// asking for all the instance's sessions in one call.
func TestSweepDisconnectsLostEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(func(c *ServerConfig) { c.SessionSweep = sweepEvery })
	id, keptTok := f.user()
	endedTok := f.login(id, time.Hour)
	bumped, bumpedTok := f.user()
	kept := f.connect(ts.URL, keptTok, sockettest.Options{})
	gone := []*sockettest.Client{
		f.connect(ts.URL, endedTok, sockettest.Options{}),
		f.connect(ts.URL, endedTok, sockettest.Options{Transports: []string{"polling"}}),
		f.connect(ts.URL, bumpedTok, sockettest.Options{}),
	}
	f.endSession(f.sessionOf(endedTok)) // no DisconnectSessions: the message is lost
	f.mu.Lock()
	f.versions[bumped]++ // no DisconnectUser either
	f.mu.Unlock()

	for i, c := range gone {
		if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
			t.Fatalf("socket %d of an ended session stayed: %v", i, err)
		}
	}
	kept.StaysConnected(t, 5*sweepEvery)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.swept != 3 {
		t.Errorf("the largest sweep asked for %d sessions, want the 3 of the instance's sockets in one call", f.swept)
	}
}

// TestSweepKeepsSocketsWhenCheckFails: while the sessions cannot be read
// (the database is down) no socket is disconnected, neither by the sweep
// nor by the socket's own session check (which may run after the session
// ended: the client sees CONNECT before it starts); once they can, the
// ended session's socket is.
func TestSweepKeepsSocketsWhenCheckFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(func(c *ServerConfig) { c.SessionSweep = sweepEvery })
	_, tok := f.user()
	c := f.connect(ts.URL, tok, sockettest.Options{})
	f.mu.Lock()
	f.failing = true
	f.mu.Unlock()
	f.endSession(f.sessionOf(tok))
	start := f.sweepCount()
	poll.Until(t, waitLimit, "three failed sweeps", func() bool { return f.sweepCount() >= start+3 })
	c.StaysConnected(t, 3*sweepEvery)
	f.mu.Lock()
	f.failing = false
	f.mu.Unlock()
	if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
		t.Fatalf("the ended session's socket stayed after the check recovered: %v", err)
	}
}

// sweepCount returns how many sweeps have asked for sessions.
func (f *fixture) sweepCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sweeps
}
