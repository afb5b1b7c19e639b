package accounts_test

import (
	"context"
	"errors"
	"slices"
	"testing"

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
		out = append(out, s.ChainID)
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
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc, caller := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.App)
	kept := users.NewSession(t, acc, action.App)
	_, foreign := users.LoggedIn(t, action.Web)
	users.Forget()

	if err := users.Logout(ctx, acc.ID, caller.Session.ID, other.RefreshToken, o); err != nil {
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
		if err := users.Logout(ctx, acc.ID, caller.Session.ID, raw, o); err != nil {
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
	t.Parallel()
	env := accountstest.New(t)
	users, ctx := env.Users, context.Background()
	acc, caller := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	users.Forget()
	if err := users.LogoutAll(ctx, acc.ID, caller.Session.ID, accountstest.Origin(action.Web), map[string]any{"why": "test"}); err != nil {
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
	if _, err := users.Load(ctx, acc.ID, caller.Session.ID); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("loading the caller after logoutall: %v, want ErrSessionEnded", err)
	}
	if err := users.LogoutAll(ctx, uuid.New(), uuid.Nil, accountstest.Origin(action.Web), nil); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("an unknown owner: %v, want ErrNotFound", err)
	}
}

// TestRevokeSession: ending another session of the caller is a
// session_revoked event of that session naming the caller's; ending the
// caller's own is a logout; either is reported. A session that is not a
// live one of the owner is ErrSessionNotFound and changes nothing.
func TestRevokeSession(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc, caller := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.App)
	_, foreign := users.LoggedIn(t, action.Web)
	users.Forget()

	if err := users.RevokeSession(ctx, acc.ID, other.Session.ID, caller.Session.ID, o); err != nil {
		t.Fatal(err)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventSessionRevoked || *ev.SessionID != other.Session.ID ||
		accountstest.EventData(t, ev)["by"] != caller.Session.ID.String() {
		t.Errorf("event %s of %v with %s, want session_revoked of the other session by the caller", ev.Type, ev.SessionID, ev.Data)
	}
	for _, id := range []uuid.UUID{other.Session.ID, foreign.Session.ID, uuid.New()} {
		if err := users.RevokeSession(ctx, acc.ID, id, caller.Session.ID, o); !errors.Is(err, accounts.ErrSessionNotFound) {
			t.Errorf("revoking %v: %v, want ErrSessionNotFound", id, err)
		}
	}
	if got := liveIDs(t, users, foreign.Account.ID); len(got) != 1 {
		t.Errorf("another owner's session ended: %v", got)
	}
	if err := users.RevokeSession(ctx, acc.ID, caller.Session.ID, caller.Session.ID, o); err != nil {
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
	t.Parallel()
	env := accountstest.New(t)
	users, ctx := env.Users, context.Background()
	acc, iss := users.LoggedIn(t, action.Web)
	p, err := users.Load(ctx, acc.ID, iss.Session.ID)
	if got, ok := p.Record.(*models.Account); err != nil || !ok || got.ID != acc.ID || !p.SessionExpiresAt.Equal(iss.Session.ExpiresAt) {
		t.Fatalf("Load = %+v, %v", p, err)
	}
	if _, err := users.Load(ctx, acc.ID, uuid.New()); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("an unknown session: %v, want ErrSessionEnded", err)
	}
	if _, err := users.SetActive(ctx, acc.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Load(ctx, acc.ID, iss.Session.ID); !errors.Is(err, auth.ErrUnknownOwner) {
		t.Errorf("a deactivated owner: %v, want ErrUnknownOwner", err)
	}
	if _, err := users.Load(ctx, uuid.New(), iss.Session.ID); !errors.Is(err, auth.ErrUnknownOwner) {
		t.Errorf("an unknown owner: %v, want ErrUnknownOwner", err)
	}
}
