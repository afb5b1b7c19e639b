package events

import (
	"context"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
)

// TestDisconnectSessionsEverywhere ends one session of a user with sockets
// on two instances over both transports: exactly that session's sockets are
// disconnected, through the other server and through a RedisEmitter, and
// the user's other session keeps its socket.
func TestDisconnectSessionsEverywhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, tsA := f.server(nil)
	b, tsB := f.server(nil)
	worker := NewRedisEmitter(f.rc, f.key)
	id, keep := f.user()
	kept := f.connect(tsB.URL, keep, sockettest.Options{})

	for name, e := range map[string]Emitter{"server B": b, "RedisEmitter": worker} {
		ended := f.login(id, time.Hour)
		onA := f.connect(tsA.URL, ended, sockettest.Options{})
		onB := f.connect(tsB.URL, ended, sockettest.Options{Transports: []string{"polling"}})
		if err := e.DisconnectSessions(wait(t), "admin", f.sessionOf(ended)); err != nil {
			t.Fatalf("%s: DisconnectSessions(admin): %v", name, err)
		}
		if err := e.DisconnectSessions(wait(t), UserOwner, f.sessionOf(ended)); err != nil {
			t.Fatalf("%s: DisconnectSessions: %v", name, err)
		}
		for _, c := range []*sockettest.Client{onA, onB} {
			if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
				t.Fatalf("%s: the ended session's socket: %v", name, err)
			}
		}
	}
	if err := a.Emit(wait(t), UserRoom(id), TestSocketEventOne, "alive"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, kept, TestSocketEventOne) // the other session's socket stayed
}

// TestSessionExpiryDisconnects binds a socket to its session's expiry: a
// session that expires disconnects its socket within 2 s of its expiry, and
// one whose expiry moved on (a refresh) keeps it. Each session's lifetime
// starts at the socket's first check, once it is connected, so however long
// a node client takes to start on a loaded machine, the sockets are there
// when the expiry comes.
func TestSessionExpiryDisconnects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	id, _ := f.user()
	const lifetime = 2 * time.Second
	expiring := f.login(id, time.Hour)
	refreshed := f.login(id, time.Hour)
	// The expiring session's first check finds it expiring in 2 s; the
	// refreshed one's too, and its check at that expiry finds it
	// refreshed for an hour.
	f.schedule(f.sessionOf(expiring), lifetime)
	f.schedule(f.sessionOf(refreshed), lifetime, time.Hour)
	gone := f.connect(ts.URL, expiring, sockettest.Options{})
	stays := f.connect(ts.URL, refreshed, sockettest.Options{Transports: []string{"polling"}})

	if _, err := gone.WaitFor(wait(t), "disconnect", nil); err != nil {
		t.Fatalf("the expired session's socket: %v", err)
	}
	expiry := f.expiryOf(f.sessionOf(expiring))
	if late := time.Since(expiry); late > 2*time.Second {
		t.Errorf("disconnected %v after the session expired, want within 2s", late)
	}
	if early := time.Until(expiry); early > 0 {
		t.Errorf("disconnected %v before the session expired", early)
	}
	// The refreshed session's expiry came at about the same time: its
	// second check found it refreshed.
	poll.Until(t, waitLimit, "the refreshed session's second check (at its first expiry)", func() bool {
		return f.checksOf(f.sessionOf(refreshed)) >= 2
	})
	stays.StaysConnected(t, time.Second)
}

// TestHandshakeRaceWithLogout ends a session while its socket's handshake
// has verified it but before the socket is connected, sending the
// disconnect then, as a logout committing at that moment would: the socket
// must not stay connected. The server has no Redis adapter, so the
// disconnect is applied at once, while the socket is not connected yet
// (through Redis it would usually come late enough to find it connected).
func TestHandshakeRaceWithLogout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, _ := f.user()
	tok := f.login(id, time.Hour)
	sid := f.sessionOf(tok)
	var srv *Server
	_, ts := f.server(func(cfg *ServerConfig) {
		cfg.Redis = nil
		verify := cfg.Verify
		cfg.Verify = func(ctx context.Context, token string) (*action.Caller, error) {
			caller, err := verify(ctx, token)
			f.endSession(sid)
			if err := srv.DisconnectSessions(ctx, UserOwner, sid); err != nil {
				t.Errorf("DisconnectSessions: %v", err)
			}
			return caller, err
		}
	})
	srv = f.servers[len(f.servers)-1]
	c := sockettest.Start(t, ts.URL, tok, sockettest.Options{})
	if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
		t.Fatalf("a socket whose session ended during its handshake stayed: %v", err)
	}
}
