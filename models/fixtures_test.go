package models_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// ownerTables lists every owner type, for tests run against each.
var ownerTables = []models.OwnerTables{models.UserTables, models.AdminTables}

// testNow returns the current time as stores expect it: UTC, microseconds.
func testNow() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// openPool returns a pool of n connections to a fresh database, for tests
// that need more concurrent transactions than pgtest.New's pool allows.
// Each of params ("binary_parameters=yes") is added to the DSN's query.
func openPool(t testing.TB, n int, params ...string) *sqlx.DB {
	t.Helper()
	dsn := pgtest.NewDSN(t)
	for _, p := range params {
		dsn += "&" + p
	}
	db, err := models.Open(testCtx(t), dsn, n)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newAccount returns an active account with a fresh id, not stored.
func newAccount(t testing.TB, email string) *models.Account {
	t.Helper()
	return &models.Account{
		ID: newID(t), Email: email, Password: "encoded", Salt: "salt",
		Timezone: "UTC", Locale: "en", IsActive: true,
	}
}

// createAccount stores a new active account in the owner table of tables.
func createAccount(t testing.TB, db models.DB, tables models.OwnerTables, email string) *models.Account {
	t.Helper()
	a := newAccount(t, email)
	if err := models.NewAccountStore(tables).Create(testCtx(t), db, a); err != nil {
		t.Fatalf("create account %s: %v", email, err)
	}
	return a
}

// newSession returns an active web session of owner expiring in 60 days
// from now, not stored.
func newSession(t testing.TB, owner uuid.UUID, now time.Time) *models.Session {
	t.Helper()
	return &models.Session{
		ID: newID(t), OwnerID: owner, RefreshTokenHash: randomHex(t, 32),
		ExpiresAt: now.Add(60 * 24 * time.Hour), Client: "web", Platform: "web",
		Assurance: models.Assurance{Methods: []string{models.MethodPassword}, Level: 1},
	}
}

// createSession stores sess with store and returns it.
func createSession(t testing.TB, db models.DB, store *models.SessionStore, sess *models.Session) *models.Session {
	t.Helper()
	if err := store.Create(testCtx(t), db, sess); err != nil {
		t.Fatalf("create session: %v", err)
	}
	return sess
}

// wantErr fails t unless err is, or wraps, want.
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got error %v, want %v", what, err, want)
	}
}

// race runs fn(i) for i in [0, n) on n goroutines, released together once
// all have started, and waits for them.
func race(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			fn(i)
		}()
	}
	ready.Wait()
	close(gate)
	done.Wait()
}

// explain returns the text plan of query with args.
func explain(t testing.TB, db models.DB, query string, args ...any) string {
	t.Helper()
	var lines []string
	if err := db.SelectContext(testCtx(t), &lines, "EXPLAIN "+query, args...); err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	plan := ""
	for _, l := range lines {
		plan += l + "\n"
	}
	return plan
}
