package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

// TestTokenUseLocksOwnerFirst presents an e-mail change, a password reset
// and an e-mail verification token while a logout everywhere of the same
// account runs, in the interleaving that deadlocks when the token row is
// locked before the owner row: the token's row is held (as a concurrent
// transaction would) until both requests wait, then let go. Each request
// must end in an answer of its own, never a 500 of a deadlock.
func TestTokenUseLocksOwnerFirst(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	for _, c := range []struct {
		name, path string
		prepare    func(t *testing.T) (*registered, map[string]any)
	}{
		{"confirmemailchange", "/v1/users/confirmemailchange", func(t *testing.T) (*registered, map[string]any) {
			u := register(t, s.client(), "app")
			return u, map[string]any{"token": changeToken(t, smtp, u, "locks-"+uniqueEmail(), 1)}
		}},
		{"resetpassword", "/v1/users/resetpassword", func(t *testing.T) (*registered, map[string]any) {
			u := register(t, s.client(), "app")
			s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": u.email}).want(t, 200, "")
			token := tokenOf(t, waitMails(t, smtp, u.email, "Reset your password", 1)[0], resetLinkRe)
			return u, map[string]any{"token": token, "password": newPassword}
		}},
		{"verifyemail", "/v1/users/verifyemail", func(t *testing.T) (*registered, map[string]any) {
			u := register(t, s.client(), "app")
			return u, map[string]any{"token": tokenOf(t, waitMails(t, smtp, u.email, "Confirm your e-mail address", 1)[0], verifyLinkRe)}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, args := c.prepare(t)
			db := s.db()
			waiting := func(n int) func() bool {
				return func() bool {
					var got int
					err := db.GetContext(t.Context(), &got, `SELECT count(*) FROM pg_stat_activity
						WHERE datname = current_database() AND wait_event_type = 'Lock'`)
					return err == nil && got >= n
				}
			}
			hold, err := db.BeginTxx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer hold.Rollback()
			if _, err := hold.Exec(`SELECT 1 FROM account_tokens WHERE token_hash = $1 FOR UPDATE`, sha256Hex(args["token"].(string))); err != nil {
				t.Fatal(err)
			}
			used, ended := make(chan *apiResponse, 1), make(chan *apiResponse, 1)
			go func() { used <- s.client().call(http.MethodPost, c.path, args) }()
			poll.Until(t, 10*time.Second, "the token's use to wait for a lock", waiting(1))
			go func() { ended <- u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...) }()
			poll.Until(t, 10*time.Second, "logoutall to wait for a lock too", waiting(2))
			if err := hold.Rollback(); err != nil {
				t.Fatal(err)
			}
			r, l := <-used, <-ended
			if r.Status >= 500 || l.Status >= 500 {
				t.Fatalf("%s: %d %s; logoutall: %d %s", c.path, r.Status, r.Raw, l.Status, l.Raw)
			}
			r.want(t, 200, "")
		})
	}
}
