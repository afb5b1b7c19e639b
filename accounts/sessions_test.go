package accounts_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// liveIDs are the ids of the live sessions of owner.
func liveIDs(t *testing.T, svc *accountstest.Service, owner uuid.UUID) []uuid.UUID {
	t.Helper()
	var out []uuid.UUID
	for _, s := range svc.Live(t, owner) {
		out = append(out, s.SessionID)
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return out
}

// TestLogout: a logout ends the caller's session and, when the refresh
// token presented is another live session's of the caller, that one too;
// a missing, malformed or foreign token is ignored. Each logout that ended
// something is one logout event of the caller's session counting them,
// and the sessions it ended are reported; one that ended nothing records
// and reports nothing.
func TestLogout(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, caller := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.App)
	kept := users.NewSession(t, acc, action.App)
	_, foreign := users.LoggedIn(t, action.Web)
	users.Forget()

	if err := users.Logout(t.Context(), acc.ID, caller.Session.ID, other.RefreshToken, o); err != nil {
		t.Fatal(err)
	}
	if got := liveIDs(t, users, acc.ID); len(got) != 1 || got[0] != kept.Session.ID {
		t.Errorf("live sessions %v, want only %v", got, kept.Session.ID)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventLogout || *ev.SessionID != caller.Session.ID || accountstest.EventData(t, ev)["sessions"] != 2.0 {
		t.Errorf("event %s of %v with %s, want a logout of the caller's session ending 2", ev.Type, ev.SessionID, ev.Data)
	}
	if got := users.EndedCalls(); len(got) != 1 || !slices.Equal(got[0].Sessions, []uuid.UUID{caller.Session.ID, other.Session.ID}) {
		t.Errorf("ended %+v, want the two sessions", got)
	}

	users.Forget()
	events := len(users.EventsOf(t, acc.ID))
	for _, raw := range []string{"", "not a token", foreign.RefreshToken} {
		if err := users.Logout(t.Context(), acc.ID, caller.Session.ID, raw, o); err != nil {
			t.Fatalf("a logout again with %q: %v", raw, err)
		}
	}
	if got := liveIDs(t, users, foreign.Account.ID); len(got) != 1 {
		t.Errorf("another owner's session ended by a logout: %v", got)
	}
	if n := len(users.EventsOf(t, acc.ID)); n != events {
		t.Errorf("a logout that ended nothing: %d events, want %d", n, events)
	}
	for _, call := range users.EndedCalls() {
		if call.Sessions == nil {
			t.Errorf("a logout that ended nothing reported every session of the owner ended")
		} else {
			t.Errorf("a logout that ended nothing reported %v ended", call.Sessions)
		}
	}
	if len(liveIDs(t, users, acc.ID)) != 1 {
		t.Error("a logout with a missing, malformed or foreign token ended the remaining session")
	}
}

// TestLogoutAll: every session ends and the token version goes up (every
// access token dies), recorded as one logoutall event of the caller's
// session with the data given, and reported as every session ended. An
// unknown owner is ErrNotFound.
func TestLogoutAll(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, caller := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	users.Forget()
	if err := users.LogoutAll(t.Context(), acc.ID, caller.Session.ID, accountstest.Origin(action.Web), map[string]any{"why": "test"}); err != nil {
		t.Fatal(err)
	}
	if got := liveIDs(t, users, acc.ID); len(got) != 0 {
		t.Errorf("live sessions %v after logoutall", got)
	}
	if v := users.Reload(t, acc.ID).TokenVersion; v != 1 {
		t.Errorf("token version %d, want 1", v)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventLogoutAll || *ev.SessionID != caller.Session.ID || accountstest.EventData(t, ev)["why"] != "test" {
		t.Errorf("event %+v, want logoutall of the caller's session with its data", ev)
	}
	if got := users.EndedCalls(); len(got) != 1 || got[0].ID != acc.ID || got[0].Sessions != nil {
		t.Errorf("ended %+v, want every session of the owner", got)
	}
	if _, err := users.Load(t.Context(), acc.ID, caller.Session.ID, action.Needs{}); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("loading the caller after logoutall: %v, want ErrSessionEnded", err)
	}
	if err := users.LogoutAll(t.Context(), uuid.New(), uuid.Nil, accountstest.Origin(action.Web), nil); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("an unknown owner: %v, want ErrNotFound", err)
	}
}

// TestRevokeSession: ending another session of the caller is a
// session_revoked event of that session naming the caller's; ending the
// caller's own is a logout; either is reported. A session that is not a
// live one of the owner is ErrSessionNotFound and changes nothing.
func TestRevokeSession(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, caller := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.App)
	_, foreign := users.LoggedIn(t, action.Web)
	users.Forget()

	if err := users.Activity.RevokeSession(t.Context(), acc.ID, other.Session.ID, caller.Session.ID, o); err != nil {
		t.Fatal(err)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventSessionRevoked || *ev.SessionID != other.Session.ID ||
		accountstest.EventData(t, ev)["by"] != caller.Session.ID.String() {
		t.Errorf("event %s of %v with %s, want session_revoked of the other session by the caller", ev.Type, ev.SessionID, ev.Data)
	}
	for _, id := range []uuid.UUID{other.Session.ID, foreign.Session.ID, uuid.New()} {
		if err := users.Activity.RevokeSession(t.Context(), acc.ID, id, caller.Session.ID, o); !errors.Is(err, accounts.ErrSessionNotFound) {
			t.Errorf("revoking %v: %v, want ErrSessionNotFound", id, err)
		}
	}
	if got := liveIDs(t, users, foreign.Account.ID); len(got) != 1 {
		t.Errorf("another owner's session ended: %v", got)
	}
	if err := users.Activity.RevokeSession(t.Context(), acc.ID, caller.Session.ID, caller.Session.ID, o); err != nil {
		t.Fatal(err)
	}
	if ev := users.EventsOf(t, acc.ID)[0]; ev.Type != models.EventLogout || *ev.SessionID != caller.Session.ID {
		t.Errorf("ending the caller's own session recorded %s of %v, want a logout", ev.Type, ev.SessionID)
	}
	want := [][]uuid.UUID{{other.Session.ID}, {caller.Session.ID}}
	got := users.EndedCalls()
	if len(got) != 2 || !slices.Equal(got[0].Sessions, want[0]) || !slices.Equal(got[1].Sessions, want[1]) {
		t.Errorf("ended %+v, want %v", got, want)
	}
	if n := len(users.EventsOf(t, acc.ID)); n != 4 {
		t.Errorf("%d events, want two logins, session_revoked and logout", n)
	}
}

// TestLoad: the authenticator's loader answers an active owner with a
// live session, and refuses an ended session or an owner deactivated or
// deleted since.
func TestLoad(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, iss := users.LoggedIn(t, action.Web)
	p, err := users.Load(t.Context(), acc.ID, iss.Session.ID, action.Needs{})
	if got, ok := p.Record.(*models.Account); err != nil || !ok || got.ID != acc.ID || !p.SessionExpiresAt.Equal(iss.Session.ExpiresAt) {
		t.Fatalf("Load = %+v, %v", p, err)
	}
	if _, err := users.Load(t.Context(), acc.ID, uuid.New(), action.Needs{}); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("an unknown session: %v, want ErrSessionEnded", err)
	}
	if _, err := users.Management.SetActive(t.Context(), acc.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Load(t.Context(), acc.ID, iss.Session.ID, action.Needs{}); !errors.Is(err, auth.ErrUnknownOwner) {
		t.Errorf("a deactivated owner: %v, want ErrUnknownOwner", err)
	}
	if _, err := users.Load(t.Context(), uuid.New(), iss.Session.ID, action.Needs{}); !errors.Is(err, auth.ErrUnknownOwner) {
		t.Errorf("an unknown owner: %v, want ErrUnknownOwner", err)
	}
}

// TestSecurityEvents: an owner's events come newest first in pages that
// follow one another by their cursors, the last with an empty cursor, and
// never include another owner's; a cursor no listing gave out is
// ErrInvalidCursor.
func TestSecurityEvents(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, _ := users.LoggedIn(t, action.Web)
	for range 4 {
		users.NewSession(t, acc, action.App)
	}
	users.LoggedIn(t, action.Web) // another owner's events
	var want []uuid.UUID
	for _, ev := range users.EventsOf(t, acc.ID) {
		want = append(want, ev.ID)
	}
	got, pages := walk(t, func(cursor string) ([]models.SecurityEvent, string, error) {
		return users.Activity.SecurityEvents(t.Context(), acc.ID, cursor, 2)
	}, func(ev models.SecurityEvent) uuid.UUID { return ev.ID })
	if len(want) != 5 || !slices.Equal(got, want) || pages != 3 {
		t.Errorf("%d pages of %v, want 3 of the 5 logins %v", pages, got, want)
	}
	if _, _, err := users.Activity.SecurityEvents(t.Context(), acc.ID, "AAAA", 2); !errors.Is(err, accounts.ErrInvalidCursor) {
		t.Errorf("a bad cursor: %v, want ErrInvalidCursor", err)
	}
}

// TestPurge: the events older than their retention and the sessions that
// expired more than a refresh lifetime ago are deleted, the others kept.
func TestPurge(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	old, _ := users.LoggedIn(t, action.Web)
	env.Clock.Advance(2 * accountstest.RefreshTTL)
	recent, _ := users.LoggedIn(t, action.Web)
	n, err := users.PurgeEvents(t.Context(), accountstest.RefreshTTL)
	if err != nil || n != 1 || len(users.EventsOf(t, old.ID)) != 0 || len(users.EventsOf(t, recent.ID)) != 1 {
		t.Errorf("PurgeEvents = %d, %v; want the old login's event alone deleted", n, err)
	}
	env.Clock.Advance(time.Second)
	n, err = users.PurgeExpired(t.Context())
	if err != nil || n != 1 || len(users.SessionsOf(t, old.ID)) != 0 || len(users.SessionsOf(t, recent.ID)) != 1 {
		t.Errorf("PurgeExpired = %d, %v; want the old session alone deleted", n, err)
	}
}

// TestPurgeChallenges: login and WebAuthn challenges that expired more
// than an hour ago are deleted, of every owner type; later ones are kept.
func TestPurgeChallenges(t *testing.T) {
	env := newEnv(t)
	acc := env.Users.NewAccount(t)
	insert := func(expires time.Time) {
		t.Helper()
		id := uuid.New()
		c := &models.Challenge{ID: id, OwnerType: "user", OwnerID: acc.ID, TokenHash: fmt.Sprintf("%064x", id[:]),
			FirstFactor: models.MethodPassword, Client: "web", ResponseVersion: 1, ExpiresAt: expires, CreatedAt: expires.Add(-time.Minute)}
		if err := (models.ChallengeStore{}).Insert(t.Context(), env.DB, c); err != nil {
			t.Fatal(err)
		}
		w := &models.Ceremony{ID: uuid.New(), OwnerType: "admin", Binding: models.Binding{Purpose: models.CeremonyLogin},
			SessionData: []byte("{}"), ExpiresAt: expires, CreatedAt: expires.Add(-time.Minute)}
		if err := (models.CeremonyStore{}).Insert(t.Context(), env.DB, w); err != nil {
			t.Fatal(err)
		}
	}
	now := env.Clock.Now()
	insert(now.Add(-61 * time.Minute))
	insert(now.Add(-59 * time.Minute))
	n, err := env.Users.SecondFactors.PurgeChallenges(t.Context())
	var left int
	if qerr := env.DB.GetContext(t.Context(), &left, `SELECT (SELECT count(*) FROM login_challenges) + (SELECT count(*) FROM webauthn_challenges)`); qerr != nil {
		t.Fatal(qerr)
	}
	if err != nil || n != 2 || left != 2 {
		t.Errorf("PurgeChallenges = %d, %v, %d left; want the two that expired over an hour ago deleted", n, err, left)
	}
}

// TestStillLive: of the sessions asked about, those live now of an active
// owner are answered with the owner's token version; ended ones, those of
// a deactivated owner and unknown ones are not.
func TestStillLive(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, live := users.LoggedIn(t, action.Web)
	ended := users.NewSession(t, acc, action.App)
	if err := users.Logout(t.Context(), acc.ID, ended.Session.ID, "", o); err != nil {
		t.Fatal(err)
	}
	gone, its := users.LoggedIn(t, action.Web)
	if _, err := users.Management.SetActive(t.Context(), gone.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	got, err := users.Activity.StillLive(t.Context(), []uuid.UUID{live.Session.ID, ended.Session.ID, its.Session.ID, uuid.New()})
	if err != nil || len(got) != 1 || got[0].SessionID != live.Session.ID || got[0].OwnerID != acc.ID || got[0].TokenVersion != 0 {
		t.Errorf("StillLive = %+v, %v; want the live session alone", got, err)
	}
}
