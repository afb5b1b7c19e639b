package models_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestRefreshBudget runs each state of a chain's budget through both forms
// of the rule: RotateLive (SQL) refuses exactly the rotations Spent (Go)
// says are spent, and writes the successor's budget as Advance does; the
// transaction's Rotate stores what Advance computed.
func TestRefreshBudget(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	store := models.NewSessionStore(models.UserTables).Prepared(db)
	budget := models.RefreshBudget{Max: 3, Window: time.Hour}
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, tc := range []struct {
		name     string
		budget   models.RefreshBudget
		windowAt *time.Time
		count    int
		spent    time.Duration // the wait when spent, else zero
	}{
		{"never refreshed", budget, nil, 0, 0},
		{"within the window, budget left", budget, at(-time.Minute), 2, 0},
		{"within the window, budget spent", budget, at(-time.Minute), 3, 59 * time.Minute},
		{"over the budget", budget, at(-59 * time.Minute), 7, time.Minute},
		{"the window closed this instant", budget, at(-time.Hour), 3, 0},
		{"the window closed long ago", budget, at(-48 * time.Hour), 9, 0},
		{"no bound", models.RefreshBudget{Window: time.Hour}, at(-time.Minute), 1000, 0},
	} {
		for _, how := range []string{"RotateLive", "Rotate"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				owner := createAccount(t, db, models.UserTables, fmt.Sprintf("budget-%s@x.io", newID(t)))
				old := newSession(t, owner.ID, now)
				old.RefreshWindowAt, old.RefreshCount = tc.windowAt, tc.count
				createSession(t, db, store, old)
				spent, wait := tc.budget.Spent(old, now)
				if want := tc.spent > 0; spent != want || wait != tc.spent {
					t.Fatalf("Spent = %v, %v; want %v, %v", spent, wait, want, tc.spent)
				}
				want := newSession(t, uuid.Nil, now)
				tc.budget.Advance(old, want, now)
				next := newSession(t, uuid.Nil, now)
				var err error
				if how == "RotateLive" {
					_, err = store.RotateLive(ctx, db, old.RefreshTokenHash, next, now, tc.budget)
				} else {
					next.OwnerID, next.RefreshWindowAt, next.RefreshCount = owner.ID, want.RefreshWindowAt, want.RefreshCount
					err = models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, old.ID, next, now) })
				}
				if how == "RotateLive" && spent {
					if !errors.Is(err, models.ErrNotFound) {
						t.Fatalf("RotateLive of a spent budget: %v, want ErrNotFound", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				stored, err := store.ByID(ctx, db, next.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !stored.RefreshWindowAt.Equal(*want.RefreshWindowAt) || stored.RefreshCount != want.RefreshCount {
					t.Errorf("successor's budget: %v %d, want %v %d", stored.RefreshWindowAt, stored.RefreshCount, want.RefreshWindowAt, want.RefreshCount)
				}
				if how == "RotateLive" && (!next.RefreshWindowAt.Equal(*want.RefreshWindowAt) || next.RefreshCount != want.RefreshCount) {
					t.Errorf("RotateLive's successor: %v %d", next.RefreshWindowAt, next.RefreshCount)
				}
			})
		}
	}
}
