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
	"github.com/actionkit/actionkit/models"
)

// TestChangePassword: the new password replaces the old, the token
// version goes up and every other session ends (reported by id), in one
// password_changed event counting them; the caller's session continues
// under its id, client and platform with new tokens, and its previous
// refresh token is now a replay.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx := env.Users, context.Background()
	acc, caller := users.LoggedIn(t, action.App)
	other := users.NewSession(t, acc, action.Web)
	users.Forget()
	const next = "Another-horse-battery-7"
	iss, err := users.ChangePassword(ctx, acc.ID, caller.Session.ID, accountstest.Password, next, accountstest.Origin(action.Web))
	if err != nil {
		t.Fatal(err)
	}
	if got := users.Reload(t, acc.ID); got.TokenVersion != 1 {
		t.Errorf("token version %d, want 1", got.TokenVersion)
	}
	live := users.Live(t, acc.ID)
	if len(live) != 1 || live[0].ChainID != caller.Session.ID || live[0].ID != iss.Session.ID || live[0].Client != "app" ||
		live[0].Platform != "ios" || iss.AccessToken == "" || iss.RefreshToken == caller.RefreshToken {
		t.Errorf("live %+v and issued %+v, want the caller's session continued with new tokens", live, iss.Session)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventPasswordChanged || *ev.SessionID != caller.Session.ID || accountstest.EventData(t, ev)["revoked"] != 1.0 {
		t.Errorf("event %s of %v with %s, want password_changed of the caller's session revoking 1", ev.Type, ev.SessionID, ev.Data)
	}
	if got := users.EndedCalls(); len(got) != 1 || !slices.Equal(got[0].Sessions, []uuid.UUID{other.Session.ID}) {
		t.Errorf("ended %+v, want the other session alone", got)
	}
	if _, err := users.Login(ctx, acc.Email, accountstest.Password, accountstest.Origin(action.Web)); !errors.Is(err, accounts.ErrInvalidCredentials) {
		t.Errorf("the old password: %v, want ErrInvalidCredentials", err)
	}
	if _, err := users.Login(ctx, acc.Email, next, accountstest.Origin(action.Web)); err != nil {
		t.Errorf("the new password: %v", err)
	}
	users.Forget()
	if _, err := users.Refresh(ctx, caller.RefreshToken, accountstest.Origin(action.App)); !errors.Is(err, accounts.ErrInvalidRefresh) ||
		!slices.Equal(users.Outcomes(), []string{"replay"}) {
		t.Errorf("the caller's previous refresh token: %v, outcomes %q; want a replay", err, users.Outcomes())
	}
}

// TestChangePasswordRefusals: a wrong current password, the same password,
// an inactive account or the caller's session ended meanwhile change
// nothing; repeated wrong current passwords are slowed down like logins.
func TestChangePasswordRefusals(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc, iss := users.LoggedIn(t, action.Web)
	change := func(current, next string) error {
		_, err := users.ChangePassword(ctx, acc.ID, iss.Session.ID, current, next, o)
		return err
	}
	if err := change(accountstest.Password, accountstest.Password); !errors.Is(err, accounts.ErrSamePassword) {
		t.Errorf("the same password: %v, want ErrSamePassword", err)
	}
	for range accountstest.SlowDownAfter {
		if err := change("Wrong-password-1", "Another-horse-battery-7"); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("a wrong current password: %v, want ErrInvalidCredentials", err)
		}
	}
	if err := change(accountstest.Password, "Another-horse-battery-7"); !errors.Is(err, accounts.ErrSlowedDown) {
		t.Errorf("after %d wrong current passwords: %v, want slowed down", accountstest.SlowDownAfter, err)
	}
	env.Clock.Advance(accountstest.SlowDownFirst)
	if err := users.Logout(ctx, acc.ID, iss.Session.ID, "", o); err != nil {
		t.Fatal(err)
	}
	if err := change(accountstest.Password, "Another-horse-battery-7"); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("from an ended session: %v, want ErrSessionEnded", err)
	}
	inactive, its := users.LoggedIn(t, action.Web)
	if _, err := users.SetActive(ctx, inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.ChangePassword(ctx, inactive.ID, its.Session.ID, accountstest.Password, "Another-horse-battery-7", o); !errors.Is(err, accounts.ErrInactive) {
		t.Errorf("an inactive account: %v, want ErrInactive", err)
	}
	for _, a := range []*models.Account{acc, inactive} {
		if got := users.Reload(t, a.ID); got.Password != a.Password {
			t.Errorf("%s: the password changed after refusals", a.Email)
		}
		for _, typ := range users.EventTypes(t, a.ID) {
			if typ == models.EventPasswordChanged {
				t.Errorf("%s: a password_changed event after refusals", a.Email)
			}
		}
	}
}
