package accounts_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestManage: each change an admin makes to a user is one event naming
// the admin (and the sessions it ended, when it ends them); deactivation
// and deletion end every session (reported as all), activation and
// restoration leave them ended; an earlier deletion keeps its time. An
// unknown account is ErrNotFound.
func TestManage(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	admin := accounts.Actor{AdminID: uuid.New(), Origin: accountstest.Origin(action.Web)}
	acc, iss := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	type step struct {
		name   string
		change func(id uuid.UUID) (*models.Account, error)
		event  string
		ends   bool
		check  func(a *models.Account) bool
	}
	var deletedAt *models.Account
	for _, s := range []step{
		{"deactivate", func(id uuid.UUID) (*models.Account, error) {
			return users.Management.SetActive(t.Context(), id, false, admin)
		},
			models.EventAccountDeactivated, true, func(a *models.Account) bool { return !a.IsActive }},
		{"activate", func(id uuid.UUID) (*models.Account, error) {
			return users.Management.SetActive(t.Context(), id, true, admin)
		},
			models.EventAccountActivated, false, func(a *models.Account) bool { return a.IsActive }},
		{"delete", func(id uuid.UUID) (*models.Account, error) { return users.Management.Delete(t.Context(), id, admin) },
			models.EventAccountDeleted, true, func(a *models.Account) bool { deletedAt = a; return a.DeletedAt != nil }},
		{"delete again", func(id uuid.UUID) (*models.Account, error) { return users.Management.Delete(t.Context(), id, admin) },
			models.EventAccountDeleted, true, func(a *models.Account) bool { return a.DeletedAt.Equal(*deletedAt.DeletedAt) }},
		{"restore", func(id uuid.UUID) (*models.Account, error) { return users.Management.Restore(t.Context(), id, admin) },
			models.EventAccountRestored, false, func(a *models.Account) bool { return a.DeletedAt == nil }},
	} {
		users.Forget()
		got, err := s.change(acc.ID)
		if err != nil || got.ID != acc.ID || !s.check(got) || !s.check(users.Reload(t, acc.ID)) {
			t.Fatalf("%s: %+v, %v", s.name, got, err)
		}
		ev := users.EventsOf(t, acc.ID)[0]
		data := accountstest.EventData(t, ev)
		if _, counted := data["revoked"]; ev.Type != s.event || data["adminId"] != admin.AdminID.String() || counted != s.ends ||
			*ev.IPAddress != admin.Origin.IP {
			t.Errorf("%s: event %s with %s, want %s by the admin", s.name, ev.Type, ev.Data, s.event)
		}
		if ended := users.EndedCalls(); (len(ended) == 1 && ended[0].Sessions == nil) != s.ends || len(ended) > 1 {
			t.Errorf("%s: ended %+v, want every session ended: %v", s.name, ended, s.ends)
		}
		if _, err := s.change(uuid.New()); !errors.Is(err, accounts.ErrNotFound) {
			t.Errorf("%s an unknown account: %v, want ErrNotFound", s.name, err)
		}
	}
	if live := users.Live(t, acc.ID); len(live) != 0 {
		t.Errorf("%d sessions live again after activation and restoration", len(live))
	}
	if _, err := users.Refresh(t.Context(), iss.RefreshToken, accountstest.Origin(action.Web)); !errors.Is(err, accounts.ErrInvalidRefresh) {
		t.Errorf("a refresh token of before the deactivation: %v, want ErrInvalidRefresh", err)
	}
}

// TestRevokeSessions: an admin's logout-all of a user ends its sessions
// and access tokens, recorded as logoutall naming the admin and no
// session.
func TestRevokeSessions(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	admin := accounts.Actor{AdminID: uuid.New(), Origin: accountstest.Origin(action.Web)}
	acc, _ := users.LoggedIn(t, action.Web)
	if err := users.Management.RevokeSessions(t.Context(), acc.ID, admin); err != nil {
		t.Fatal(err)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventLogoutAll || ev.SessionID != nil || accountstest.EventData(t, ev)["adminId"] != admin.AdminID.String() {
		t.Errorf("event %s of %v with %s, want logoutall by the admin", ev.Type, ev.SessionID, ev.Data)
	}
	if got := users.Reload(t, acc.ID); got.TokenVersion != 1 || len(users.Live(t, acc.ID)) != 0 {
		t.Errorf("token version %d, %d live sessions; want 1 and none", got.TokenVersion, len(users.Live(t, acc.ID)))
	}
	if err := users.Management.RevokeSessions(t.Context(), uuid.New(), admin); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("an unknown account: %v, want ErrNotFound", err)
	}
}

// TestList: pages of a filtered listing, newest first, follow one another
// by their cursors until the last, whose cursor is empty; a cursor no
// listing gave out is ErrInvalidCursor.
func TestList(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	var want []uuid.UUID
	for range 5 {
		want = append(want, users.NewAccount(t).ID)
	}
	inactive := users.NewAccount(t)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(want)
	got, pages := walk(t, func(cursor string) ([]models.Account, string, error) {
		return users.Management.List(t.Context(), accounts.ListFilter{Query: "@ACCOUNTSTEST.example", Status: models.StatusActive, Cursor: cursor, Limit: 2})
	}, func(a models.Account) uuid.UUID { return a.ID })
	if !slices.Equal(got, want) || pages != 3 {
		t.Errorf("%d pages of %v, want 3 of %v", pages, got, want)
	}
	if _, _, err := users.Management.List(t.Context(), accounts.ListFilter{Cursor: "not-a-cursor", Limit: 2}); !errors.Is(err, accounts.ErrInvalidCursor) {
		t.Errorf("a bad cursor: %v, want ErrInvalidCursor", err)
	}
}
