package accounts_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
)

// TestSecurityEvents: an owner's events come newest first in pages that
// follow one another by their cursors, the last with an empty cursor, and
// never include another owner's; a cursor no listing gave out is
// ErrInvalidCursor.
func TestSecurityEvents(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx := env.Users, context.Background()
	acc, _ := users.LoggedIn(t, action.Web)
	for range 4 {
		users.NewSession(t, acc, action.App)
	}
	users.LoggedIn(t, action.Web) // another owner's events
	var want []uuid.UUID
	for _, ev := range users.EventsOf(t, acc.ID) {
		want = append(want, ev.ID)
	}
	var got []uuid.UUID
	cursor, pages := "", 0
	for {
		list, next, err := users.SecurityEvents(ctx, acc.ID, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range list {
			got = append(got, ev.ID)
		}
		if pages++; next == "" || pages > 5 {
			break
		}
		cursor = next
	}
	if len(want) != 5 || !slices.Equal(got, want) || pages != 3 {
		t.Errorf("%d pages of %v, want 3 of the 5 logins %v", pages, got, want)
	}
	if _, _, err := users.SecurityEvents(ctx, acc.ID, "AAAA", 2); !errors.Is(err, accounts.ErrInvalidCursor) {
		t.Errorf("a bad cursor: %v, want ErrInvalidCursor", err)
	}
}

// TestPurge: the events older than their retention and the sessions that
// expired more than a refresh lifetime ago are deleted, the others kept.
func TestPurge(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx := env.Users, context.Background()
	old, _ := users.LoggedIn(t, action.Web)
	env.Clock.Advance(2 * accountstest.RefreshTTL)
	recent, _ := users.LoggedIn(t, action.Web)
	n, err := users.PurgeEvents(ctx, accountstest.RefreshTTL)
	if err != nil || n != 1 || len(users.EventsOf(t, old.ID)) != 0 || len(users.EventsOf(t, recent.ID)) != 1 {
		t.Errorf("PurgeEvents = %d, %v; want the old login's event alone deleted", n, err)
	}
	env.Clock.Advance(time.Second)
	n, err = users.PurgeExpired(ctx)
	if err != nil || n != 1 || len(users.SessionsOf(t, old.ID)) != 0 || len(users.SessionsOf(t, recent.ID)) != 1 {
		t.Errorf("PurgeExpired = %d, %v; want the old session alone deleted", n, err)
	}
}

// TestStillLive: of the sessions asked about, those live now of an active
// owner are answered with the owner's token version; ended ones, those of
// a deactivated owner and unknown ones are not.
func TestStillLive(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc, live := users.LoggedIn(t, action.Web)
	ended := users.NewSession(t, acc, action.App)
	if err := users.Logout(ctx, acc.ID, ended.Session.ID, "", o); err != nil {
		t.Fatal(err)
	}
	gone, its := users.LoggedIn(t, action.Web)
	if _, err := users.SetActive(ctx, gone.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	got, err := users.StillLive(ctx, []uuid.UUID{live.Session.ID, ended.Session.ID, its.Session.ID, uuid.New()})
	if err != nil || len(got) != 1 || got[0].ChainID != live.Session.ID || got[0].OwnerID != acc.ID || got[0].TokenVersion != 0 {
		t.Errorf("StillLive = %+v, %v; want the live session alone", got, err)
	}
}
