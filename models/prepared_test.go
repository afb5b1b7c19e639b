package models_test

import (
	"errors"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestPreparedStores runs the hot paths with prepared statements: outside
// a transaction, inside one (where the pool's statement is bound to the
// transaction's connection), and with a handle of another pool, which
// falls back to plain queries.
func TestPreparedStores(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	accounts := models.NewAccountStore(models.UserTables).Prepared(db)
	sessions := models.NewSessionStore(models.UserTables).Prepared(db)
	owner := createAccount(t, db, models.UserTables, "prepared@x.io")
	for i := 0; i < 3; i++ { // the second and third calls reuse the statement
		got, err := accounts.ByID(ctx, db, owner.ID)
		if err != nil || got.Email != "prepared@x.io" {
			t.Fatalf("ByID = %+v, %v", got, err)
		}
	}
	if _, err := accounts.ByEmail(ctx, db, "nobody@x.io"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("ByEmail of nobody: got %v, want ErrNotFound", err)
	}
	old := newSession(t, owner.ID, now)
	if err := sessions.Create(ctx, db, old); err != nil {
		t.Fatal(err)
	}
	if err := sessions.Create(ctx, db, old); !errors.Is(err, models.ErrDuplicate) {
		t.Errorf("a duplicate hash: got %v, want ErrDuplicate", err)
	}
	for i := 0; i < 2; i++ {
		next := newSession(t, owner.ID, now)
		err := models.Transact(ctx, db, func(tx *sqlx.Tx) error {
			if _, err := accounts.LockBySessionHash(ctx, tx, old.RefreshTokenHash); err != nil {
				return err
			}
			if _, err := sessions.ByHash(ctx, tx, old.RefreshTokenHash); err != nil {
				return err
			}
			return sessions.Rotate(ctx, tx, old.ID, next, now)
		})
		if i == 0 && err != nil {
			t.Fatalf("first rotation: %v", err)
		}
		if i == 1 && !errors.Is(err, models.ErrConflict) {
			t.Errorf("second rotation of one session: got %v, want ErrConflict", err)
		}
	}
	list, err := sessions.ListByOwner(ctx, db, owner.ID)
	if err != nil || len(list) != 2 {
		t.Errorf("sessions = %d, %v; want the old one and one successor", len(list), err)
	}
	other := pgtest.New(t)
	stranger := createAccount(t, other, models.UserTables, "other@x.io")
	if got, err := accounts.ByID(ctx, other, stranger.ID); err != nil || got.ID != stranger.ID {
		t.Errorf("a handle of another pool: got %+v, %v", got, err)
	}
	posts := models.PostStore{}.Prepared(db)
	p := &models.Post{ID: newID(t), UserID: owner.ID, Title: "t"}
	if err := posts.Create(ctx, db, p); err != nil {
		t.Fatal(err)
	}
	if _, changed, err := posts.Publish(ctx, db, p.ID, owner.ID, now, "x"); err != nil || !changed {
		t.Errorf("Publish = %v, %v", changed, err)
	}
}

// TestPreparedStoresUnderLockContention: more transactions than pool
// connections, all waiting on one another's unique-index lock, must not
// deadlock on the preparation of a statement.
func TestPreparedStoresUnderLockContention(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	pool, err := models.Open(testCtx(t), dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	accounts := models.NewAccountStore(models.UserTables).Prepared(pool)
	sessions := models.NewSessionStore(models.UserTables).Prepared(pool)
	ctx, now := testCtx(t), testNow()
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func() {
			a := &models.Account{ID: newID(t), Email: "same@x.io", Password: "p", Salt: "s", Timezone: "UTC", Locale: "en", IsActive: true}
			errs <- models.Transact(ctx, pool, func(tx *sqlx.Tx) error {
				if err := accounts.Create(ctx, tx, a); err != nil {
					return err
				}
				return sessions.Create(ctx, tx, newSession(t, a.ID, now))
			})
		}()
	}
	created := 0
	for i := 0; i < 6; i++ {
		if err := <-errs; err == nil {
			created++
		} else if !errors.Is(err, models.ErrDuplicate) {
			t.Errorf("got %v", err)
		}
	}
	if created != 1 {
		t.Errorf("created %d accounts, want 1", created)
	}
}
