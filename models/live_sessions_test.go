package models_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestLiveSessions reads many sessions at once: a live one (after a
// rotation, by its chain id), and one each revoked, expired, of an inactive
// owner, of a deleted owner, and unknown. Only the live one comes back, with
// its owner, expiry and the owner's token version.
func TestLiveSessions(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, now := testCtx(t), testNow()
			accounts, store := models.NewAccountStore(tables), models.NewSessionStore(tables)
			owner := createAccount(t, db, tables, "live-"+tables.Owners+"@x.io")
			if _, err := accounts.BumpTokenVersion(ctx, db, owner.ID, now); err != nil {
				t.Fatal(err)
			}
			live := createSession(t, db, store, newSession(t, owner.ID, now))
			next := newSession(t, owner.ID, now)
			if err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, live.ID, next, now) }); err != nil {
				t.Fatal(err)
			}
			revoked := createSession(t, db, store, newSession(t, owner.ID, now))
			if _, err := store.Revoke(ctx, db, revoked.ID, now); err != nil {
				t.Fatal(err)
			}
			expired := newSession(t, owner.ID, now)
			expired.ExpiresAt = now
			createSession(t, db, store, expired)
			inactive := createAccount(t, db, tables, "inactive-"+tables.Owners+"@x.io")
			ofInactive := createSession(t, db, store, newSession(t, inactive.ID, now))
			if err := accounts.SetActive(ctx, db, inactive.ID, false, now); err != nil {
				t.Fatal(err)
			}
			deleted := createAccount(t, db, tables, "deleted-"+tables.Owners+"@x.io")
			ofDeleted := createSession(t, db, store, newSession(t, deleted.ID, now))
			if err := accounts.SoftDelete(ctx, db, deleted.ID, now); err != nil {
				t.Fatal(err)
			}

			ids := []uuid.UUID{live.SessionID, revoked.ID, expired.ID, ofInactive.ID, ofDeleted.ID, newID(t)}
			got, err := accounts.LiveSessions(ctx, db, ids, now)
			want := []models.LiveSession{{SessionID: live.SessionID, OwnerID: owner.ID, TokenVersion: 1, ExpiresAt: next.ExpiresAt}}
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("LiveSessions: got %+v, %v, want %+v", got, err, want)
			}
			if got, err := accounts.LiveSessions(ctx, db, ids, next.ExpiresAt); err != nil || len(got) != 0 {
				t.Errorf("LiveSessions at the live one's expiry: got %+v, %v, want none", got, err)
			}
			if got, err := accounts.LiveSessions(ctx, db, nil, now); err != nil || len(got) != 0 {
				t.Errorf("LiveSessions of no session: got %+v, %v", got, err)
			}
		})
	}
}
