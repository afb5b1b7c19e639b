package models_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
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
			if _, err := accounts.LockForUpdate(ctx, tx, owner.ID); err != nil {
				return err
			}
			if _, _, err := sessions.LockOwnerAndRead(ctx, tx, old.RefreshTokenHash); err != nil {
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
	if _, changed, err := posts.Publish(ctx, db, p.ID, owner.ID, now); err != nil || !changed {
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

// TestLockOwnerAndRead reads a session with its owner in one statement,
// and shows the stale read it can give after waiting for the owner's lock
// being refused by Rotate.
func TestLockOwnerAndRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	sessions := models.NewSessionStore(models.UserTables).Prepared(db)
	owner := createAccount(t, db, models.UserTables, "lock@x.io")
	old := createSession(t, db, sessions, newSession(t, owner.ID, now))
	acc, sess, err := sessions.LockOwnerAndRead(ctx, db, old.RefreshTokenHash)
	if err != nil || acc.ID != owner.ID || acc.Email != "lock@x.io" || sess.ID != old.ID || sess.OwnerID != owner.ID ||
		sess.RefreshTokenHash != old.RefreshTokenHash || !sess.ExpiresAt.Equal(old.ExpiresAt) || sess.Client != old.Client {
		t.Fatalf("got %+v %+v %v", acc, sess, err)
	}
	if _, _, err := sessions.LockOwnerAndRead(ctx, db, strings.Repeat("0", 64)); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown hash: got %v, want ErrNotFound", err)
	}
	// Rotate in a first transaction while a second waits for the owner.
	first, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sessions.LockOwnerAndRead(ctx, first, old.RefreshTokenHash); err != nil {
		t.Fatal(err)
	}
	type result struct {
		sess *models.Session
		err  error
		tx   *sqlx.Tx
	}
	second := make(chan result, 1)
	go func() {
		tx, err := db.BeginTxx(ctx, nil)
		if err != nil {
			second <- result{err: err}
			return
		}
		_, s, err := sessions.LockOwnerAndRead(ctx, tx, old.RefreshTokenHash)
		second <- result{s, err, tx}
	}()
	waitForLockWaiter(t, db)
	if err := sessions.Rotate(ctx, first, old.ID, newSession(t, owner.ID, now), now); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-second
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.tx.Rollback()
	if err := sessions.Rotate(ctx, r.tx, old.ID, newSession(t, owner.ID, now), now); !errors.Is(err, models.ErrConflict) {
		t.Errorf("rotating what the waiter read: got %v, want ErrConflict", err)
	}
	fresh, err := sessions.ByHash(ctx, r.tx, old.RefreshTokenHash)
	if err != nil || fresh.State(now) != models.SessionRotated {
		t.Errorf("a fresh read: state %v (%v), want rotated", fresh.State(now), err)
	}
}

func TestRotateLive(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	for _, prepared := range []bool{false, true} {
		sessions := models.NewSessionStore(models.UserTables)
		if prepared {
			sessions = sessions.Prepared(db)
		}
		owner := createAccount(t, db, models.UserTables, fmt.Sprintf("live%v@x.io", prepared))
		old := newSession(t, owner.ID, now)
		old.Client, old.Platform = "app", "ios"
		createSession(t, db, sessions, old)
		next := newSession(t, uuid.Nil, now)
		acc, err := sessions.RotateLive(ctx, db, old.RefreshTokenHash, next, now, models.RefreshBudget{})
		if err != nil || acc.ID != owner.ID || next.OwnerID != owner.ID || next.Client != "app" || next.Platform != "ios" {
			t.Fatalf("RotateLive = %+v, %+v, %v", acc, next, err)
		}
		rotated, _ := sessions.ByID(ctx, db, old.ID)
		stored, _ := sessions.ByID(ctx, db, next.ID)
		if rotated.State(now) != models.SessionRotated || *rotated.ReplacedBySessionID != next.ID || stored.State(now) != models.SessionActive ||
			stored.Client != "app" || stored.RefreshTokenHash != next.RefreshTokenHash || string(stored.UserAgent) != string(next.UserAgent) {
			t.Errorf("old %+v, new %+v", rotated, stored)
		}
		// Not live any more, expired, or an inactive owner: nothing changes.
		if _, err := sessions.RotateLive(ctx, db, old.RefreshTokenHash, newSession(t, uuid.Nil, now), now, models.RefreshBudget{}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a rotated session: got %v, want ErrNotFound", err)
		}
		if _, err := sessions.RotateLive(ctx, db, next.RefreshTokenHash, newSession(t, uuid.Nil, now), next.ExpiresAt, models.RefreshBudget{}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("an expired session: got %v, want ErrNotFound", err)
		}
		accounts := models.NewAccountStore(models.UserTables)
		if err := accounts.SetActive(ctx, db, owner.ID, false, now); err != nil {
			t.Fatal(err)
		}
		if _, err := sessions.RotateLive(ctx, db, next.RefreshTokenHash, newSession(t, uuid.Nil, now), now, models.RefreshBudget{}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("an inactive owner: got %v, want ErrNotFound", err)
		}
		if _, err := sessions.RotateLive(ctx, db, strings.Repeat("1", 64), newSession(t, uuid.Nil, now), now, models.RefreshBudget{}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("an unknown hash: got %v, want ErrNotFound", err)
		}
		list, _ := sessions.ListByOwner(ctx, db, owner.ID)
		if len(list) != 2 {
			t.Errorf("%d sessions, want 2: a refused rotation inserts nothing", len(list))
		}
	}
}

// TestRotateLiveRaces: 20 rotations of one session at once make exactly
// one successor; the others change nothing.
func TestRotateLiveRaces(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	db.SetMaxOpenConns(20)
	ctx, now := testCtx(t), testNow()
	sessions := models.NewSessionStore(models.UserTables).Prepared(db)
	owner := createAccount(t, db, models.UserTables, "race@x.io")
	old := createSession(t, db, sessions, newSession(t, owner.ID, now))
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func() {
			_, err := sessions.RotateLive(ctx, db, old.RefreshTokenHash, newSession(t, uuid.Nil, now), now, models.RefreshBudget{})
			errs <- err
		}()
	}
	ok := 0
	for i := 0; i < 20; i++ {
		if err := <-errs; err == nil {
			ok++
		} else if !errors.Is(err, models.ErrNotFound) {
			t.Errorf("got %v", err)
		}
	}
	list, _ := sessions.ListByOwner(ctx, db, owner.ID)
	if ok != 1 || len(list) != 2 {
		t.Errorf("%d rotations succeeded and %d sessions exist; want 1 and 2", ok, len(list))
	}
}

// TestEveryStoreQueryPrepares prepares the query table of every store, of
// both owner types, and fails if any query in it does not prepare (a typo,
// a missing column) or if the table holds none. Queries outside a table
// cannot slip by: the tests of this package run prepared stores strictly
// (export_test.go), so such SQL panics in the test that runs it.
func TestEveryStoreQueryPrepares(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	type table interface{ QueryTable() (total, prepared int) }
	stores := map[string]table{
		"user sessions":  models.NewSessionStore(models.UserTables).Prepared(db),
		"admin sessions": models.NewSessionStore(models.AdminTables).Prepared(db),
		"users":          models.NewAccountStore(models.UserTables).Prepared(db),
		"admins":         models.NewAccountStore(models.AdminTables).Prepared(db),
		"posts":          models.PostStore{}.Prepared(db),
		"tokens":         models.TokenStore{}.Prepared(db),
		"events":         models.EventStore{}.Prepared(db),
		"factors":        models.FactorStore{}.Prepared(db),
		"passkeys":       models.PasskeyStore{}.Prepared(db),
		"ceremonies":     models.CeremonyStore{}.Prepared(db),
	}
	for name, s := range stores {
		total, prepared := s.QueryTable()
		if total == 0 || prepared != total {
			t.Errorf("%s: %d of %d queries prepared; want all, and at least one", name, prepared, total)
		}
	}
}

// TestQueryTableHoldsOnlySQL: a field that is not a string cannot hide in a
// query table, where Prepared would pass it over.
func TestQueryTableHoldsOnlySQL(t *testing.T) {
	t.Parallel()
	got := models.QueriesOf(&struct{ a, b string }{"SELECT 1", "SELECT 2"})
	if len(got) != 2 || got[0] != "SELECT 1" || got[1] != "SELECT 2" {
		t.Errorf("queriesOf = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a table with an int field: no panic")
		}
	}()
	models.QueriesOf(&struct {
		a string
		n int
	}{})
}
