package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestPurgeExpired(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewSessionStore(tables), testNow()
			cutoff := now.Add(-24 * time.Hour)
			owner := createAccount(t, db, tables, "p@x.io")
			expiring := func(at time.Time) *models.Session {
				s := newSession(t, owner.ID, now)
				s.ExpiresAt = at
				return createSession(t, db, store, s)
			}
			var doomed []uuid.UUID
			for i := range 7 {
				doomed = append(doomed, expiring(cutoff.Add(-time.Duration(i+1)*time.Microsecond)).ID)
			}
			kept := []uuid.UUID{expiring(cutoff).ID, expiring(cutoff.Add(time.Hour)).ID}

			// A session rotated into one that is purged loses its pointer.
			old := expiring(now.Add(time.Hour))
			succ := newSession(t, owner.ID, now)
			succ.ExpiresAt = cutoff.Add(-time.Hour)
			if err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, old.ID, succ, now) }); err != nil {
				t.Fatal(err)
			}
			doomed = append(doomed, succ.ID)
			kept = append(kept, old.ID)

			// 8 rows in batches of 3: three statements, the last deleting 2.
			if n, err := store.PurgeExpired(ctx, db, cutoff, 3); err != nil || n != 8 {
				t.Errorf("PurgeExpired: got %d, %v, want 8", n, err)
			}
			for _, id := range doomed {
				_, err := store.ByID(ctx, db, id)
				wantErr(t, "purged session", err, models.ErrNotFound)
			}
			for _, id := range kept {
				if _, err := store.ByID(ctx, db, id); err != nil {
					t.Errorf("kept session %s: got %v, want it", id, err)
				}
			}
			got, err := store.ByID(ctx, db, old.ID)
			if err != nil || got.ReplacedBySessionID != nil || got.RevokedAt == nil {
				t.Errorf("predecessor of a purged session: got %+v, %v, want revoked with replaced_by NULL", got, err)
			}
			if n, err := store.PurgeExpired(ctx, db, cutoff, 3); err != nil || n != 0 {
				t.Errorf("second PurgeExpired: got %d, %v, want 0", n, err)
			}
		})
	}
}

func TestPurgeExpiredExactBatches(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewSessionStore(models.UserTables), testNow()
	owner := createAccount(t, db, models.UserTables, "e@x.io")
	for range 6 {
		s := newSession(t, owner.ID, now)
		s.ExpiresAt = now.Add(-time.Hour)
		createSession(t, db, store, s)
	}
	// A multiple of the batch: the loop ends on the empty batch after it.
	if n, err := store.PurgeExpired(ctx, db, now, 2); err != nil || n != 6 {
		t.Errorf("PurgeExpired: got %d, %v, want 6", n, err)
	}
}

func TestPurgeExpiredErrors(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	store, now := models.NewSessionStore(models.UserTables), testNow()
	if _, err := store.PurgeExpired(testCtx(t), db, now, 0); err == nil {
		t.Error("PurgeExpired with batch 0: got nil, want an error")
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	if n, err := store.PurgeExpired(ctx, db, now, 10); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("PurgeExpired with a cancelled context: got %d, %v, want 0, context.Canceled", n, err)
	}
}
