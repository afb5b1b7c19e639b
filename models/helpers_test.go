package models_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/models"
)

// testCtx returns a context that ends with the test or after a minute.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openDSN opens dsn with models.Open and closes it when the test ends.
func openDSN(t testing.TB, dsn string) *sqlx.DB {
	t.Helper()
	db, err := models.Open(testCtx(t), dsn, 4)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// withDatabase returns dsn with its database name replaced.
func withDatabase(t testing.TB, dsn, name string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse DSN: %v", err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// dropOnCleanup drops database name (reached through the postgres database
// of the server in dsn) when the test ends.
func dropOnCleanup(t testing.TB, dsn, name string) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := models.Open(ctx, withDatabase(t, dsn, "postgres"), 1)
		if err != nil {
			t.Errorf("open maintenance db: %v", err)
			return
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
}

// randomHex returns n random bytes as hex.
func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// newID returns a fresh UUID v7.
func newID(t testing.TB) uuid.UUID {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// insertUser inserts a user into table (users or admins) and returns its id.
func insertUser(t testing.TB, db models.DB, table, email string) uuid.UUID {
	t.Helper()
	id := newID(t)
	_, err := db.ExecContext(testCtx(t),
		`INSERT INTO `+table+` (id, email, password, salt) VALUES ($1, $2, 'hash', 'salt')`, id, email)
	if err != nil {
		t.Fatalf("insert into %s %q: %v", table, email, err)
	}
	return id
}

// insertSession inserts a user session for userID and returns its id.
func insertSession(t testing.TB, db models.DB, userID uuid.UUID) uuid.UUID {
	t.Helper()
	id := newID(t)
	_, err := db.ExecContext(testCtx(t),
		`INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, chain_id, login_at)
		 VALUES ($1, $2, $3, now() + interval '60 days', $1, now())`, id, userID, randomHex(t, 32))
	if err != nil {
		t.Fatalf("insert session: %v", err)
	}
	return id
}

// count returns the result of a SELECT count(*) query.
func count(t testing.TB, db models.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.GetContext(testCtx(t), &n, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// waitForLockWaiter waits until a session of db's database waits for a
// lock.
func waitForLockWaiter(t testing.TB, db models.DB) {
	t.Helper()
	poll.Until(t, 10*time.Second, "a session of the database to wait for a lock", func() bool {
		return count(t, db, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`) > 0
	})
}
