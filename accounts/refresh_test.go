package accounts_test

import (
	"errors"
	"testing"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestStolenTokenReplayedTwice replays a rotated refresh token twice: the
// first replay is theft (every session ends, the token version moves on,
// one refresh_theft event); the second changes nothing, so the session
// the owner opens in between survives it and still refreshes.
func TestStolenTokenReplayedTwice(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	acc, iss := users.LoggedIn(t, action.App)
	stolen := iss.RefreshToken
	if _, err := users.Refresh(t.Context(), stolen, o); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Refresh(t.Context(), stolen, o); !errors.Is(err, accounts.ErrInvalidRefresh) {
		t.Fatalf("the first replay: %v, want ErrInvalidRefresh", err)
	}
	if v := users.Reload(t, acc.ID).TokenVersion; v != 1 {
		t.Fatalf("after the first replay: token version %d, want 1", v)
	}
	if live := users.Live(t, acc.ID); len(live) != 0 {
		t.Fatalf("%d live sessions after the theft, want none", len(live))
	}
	again := users.NewSession(t, acc, action.App)
	users.Forget()
	if _, err := users.Refresh(t.Context(), stolen, o); !errors.Is(err, accounts.ErrInvalidRefresh) {
		t.Errorf("the second replay: %v, want ErrInvalidRefresh", err)
	}
	if v := users.Reload(t, acc.ID).TokenVersion; v != 1 {
		t.Errorf("after the second replay: token version %d, want 1", v)
	}
	if ended := users.EndedCalls(); len(ended) != 0 {
		t.Errorf("the second replay ended sessions: %+v", ended)
	}
	if live := users.Live(t, acc.ID); len(live) != 1 || live[0].SessionID != again.Session.SessionID {
		t.Errorf("live sessions after the second replay: %+v, want the new login's", live)
	}
	thefts := 0
	for _, typ := range users.EventTypes(t, acc.ID) {
		if typ == models.EventRefreshTheft {
			thefts++
		}
	}
	if thefts != 1 {
		t.Errorf("%d refresh_theft events, want 1", thefts)
	}
	if _, err := users.Refresh(t.Context(), again.RefreshToken, o); err != nil {
		t.Errorf("the new login's refresh: %v", err)
	}
}
