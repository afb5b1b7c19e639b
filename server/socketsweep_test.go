package main

import (
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// TestSweepDisconnectsSilentlyEndedSessions ends a session and deactivates
// a user straight in the database, so that no disconnect message is sent
// (as when it was lost): the instance's periodic sweep of its sockets'
// sessions must disconnect their sockets and keep the live session's.
func TestSweepDisconnectsSilentlyEndedSessions(t *testing.T) {
	t.Parallel()
	const sweep = 200 * time.Millisecond
	s := startServerWith(t, testEnv(t, "LOG_LEVEL=info"), func(e *environment) { e.socketSweep = sweep }, "api")
	u := register(t, s.client(), "web")
	other := loginAgain(t, s, u, "app")
	v := register(t, s.client(), "web")
	connect := func(r *registered) *sockettest.Client { return connectSocket(t, s.URL, r.token) }
	ended, deactivated, kept := connect(u), connect(v), connect(other)

	db := s.db()
	if _, err := db.ExecContext(t.Context(), `UPDATE user_sessions SET revoked_at = now() WHERE chain_id = $1`, u.sid(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `UPDATE users SET is_active = false WHERE id = $1`, v.id); err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]*sockettest.Client{"the revoked session's socket": ended, "the deactivated user's socket": deactivated} {
		if _, err := c.WaitFor(waitCtx(t), "disconnect", nil); err != nil {
			t.Fatalf("%s stayed: %v", what, err)
		}
	}
	kept.StaysConnected(t, 5*sweep)
}
