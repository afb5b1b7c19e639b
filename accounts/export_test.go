package accounts

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
)

// RefreshFixture is a service, an owner and a refresh token in the state
// of one row of the state machine, for the external tests.
type RefreshFixture struct {
	Row      RefreshTransition
	Service  *Service
	Token    string
	Outcomes *[]string
}

// RefreshFixtures makes one fixture for each row of the state machine
// (with a usable owner where the row allows one, else a deactivated one).
func RefreshFixtures(t *testing.T, db *sqlx.DB, tokens *auth.Tokens) []RefreshFixture {
	t.Helper()
	var out []RefreshFixture
	for i, row := range refreshTransitions {
		owner := map[ownerCond]string{ownerAny: "active", ownerUsable: "active", ownerUnusable: "inactive"}[row.owner]
		f := newRefreshFixture(t, db, tokens, refreshCase{row: row, owner: owner, marked: row.chain == chainMarked, between: "Refresh"})
		out = append(out, RefreshFixture{Row: RefreshTransitions()[i], Service: f.svc, Token: f.raw, Outcomes: &f.outcomes})
	}
	return out
}
