package accountstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// The refresh budget of the fixtures' engines: fixtureBudgetMax
// refreshes of a session within an hour.
const fixtureBudgetMax = 2

// RefreshFixture is a refresh token in the state of one row of the
// refresh state machine, with an engine of its own whose hooks have
// reported nothing yet: what the next refresh of Token reports is the
// row's.
type RefreshFixture struct {
	Row     accounts.RefreshTransition
	Service *Service
	// Owner is the account of the session Token names (of every row but
	// malformed and unknown), which has another live session besides.
	Owner *models.Account
	Token string
}

// RefreshFixtures makes one fixture for each row of the state machine,
// in its order, with an owner as the row needs it (usable, else
// deactivated) and the chain marked when the row is about a marked one.
func (e *Env) RefreshFixtures(t testing.TB) []RefreshFixture {
	t.Helper()
	var out []RefreshFixture
	for _, row := range accounts.RefreshTransitions() {
		out = append(out, e.refreshFixture(t, row))
	}
	return out
}

// refreshFixture makes the fixture of row.
func (e *Env) refreshFixture(t testing.TB, row accounts.RefreshTransition) RefreshFixture {
	t.Helper()
	svc := e.NewService(t, accounts.Users)
	svc.RefreshBudget = models.RefreshBudget{Max: fixtureBudgetMax, Window: time.Hour}
	acc, _ := svc.LoggedIn(t, action.Web) // another device: a theft ends more than one session
	f := RefreshFixture{Row: row, Service: svc, Owner: acc}
	switch row.From {
	case "malformed":
		f.Token = "not a refresh token"
	case "unknown":
		raw, _, err := auth.NewOpaqueToken()
		if err != nil {
			t.Fatalf("accountstest: %v", err)
		}
		f.Token = raw
	default:
		f.Token = svc.tokenIn(t, acc, row)
	}
	if row.Owner == "unusable" {
		if err := svc.Accounts.SetActive(context.Background(), svc.DB, acc.ID, false, svc.Now()); err != nil {
			t.Fatalf("accountstest: deactivate: %v", err)
		}
	}
	svc.Forget()
	return f
}

// tokenIn opens an app session of acc and returns its refresh token, brought
// into the state row names.
func (s *Service) tokenIn(t testing.TB, acc *models.Account, row accounts.RefreshTransition) string {
	t.Helper()
	ctx, now := context.Background(), s.Now()
	iss := s.NewSession(t, acc, action.App)
	table := s.Kind.Tables.Sessions
	var err error
	switch row.From {
	case "active":
		if row.Limited {
			_, err = s.DB.ExecContext(ctx, `UPDATE `+table+` SET refresh_window_at = $2, refresh_count = $3 WHERE id = $1`,
				iss.Session.ID, now.Add(-time.Minute), fixtureBudgetMax)
		}
	case "expired":
		_, err = s.DB.ExecContext(ctx, `UPDATE `+table+` SET expires_at = $2 WHERE id = $1`, iss.Session.ID, now.Add(-time.Second))
	case "revoked":
		_, err = s.Service.Sessions.Revoke(ctx, s.DB, iss.Session.ID, now)
	case "rotated":
		if _, err = s.Refresh(ctx, iss.RefreshToken, Origin(action.Web)); err == nil && row.Marked {
			// The first replay marks the chain.
			if _, err = s.Refresh(ctx, iss.RefreshToken, Origin(action.Web)); errors.Is(err, accounts.ErrInvalidRefresh) {
				err = nil
			}
		}
	default:
		t.Fatalf("accountstest: no fixture for a token %s", row.From)
	}
	if err != nil {
		t.Fatalf("accountstest: a token %s: %v", row.From, err)
	}
	return iss.RefreshToken
}
