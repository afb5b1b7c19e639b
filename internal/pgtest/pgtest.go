package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/models"

	"github.com/actionkit/actionkit/internal/testenv"
)

// DefaultURL is the server used when PGTEST_URL is not set.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

const (
	templatePrefix = "actionkit_tmpl_"
	testPrefix     = "actionkit_test_"
	// templateLockKey serializes template creation across test processes.
	templateLockKey = int64(0x616b746d706c) // "aktmpl"
	// adminConns caps the connections this process holds to the
	// maintenance database for CREATE and DROP DATABASE.
	adminConns = 4
	// dbConns is the pool size of the *sqlx.DB that New returns.
	dbConns = 4
	// setupTimeout bounds template creation; opTimeout bounds one CREATE
	// DATABASE, DROP DATABASE or connection.
	setupTimeout = 2 * time.Minute
	opTimeout    = 30 * time.Second
)

// server is the state shared by every test of this process: the maintenance
// connection pool and the name of the migrated template.
type server struct {
	base     *url.URL
	admin    *sql.DB
	template string
	// unreachable is set when the server did not answer; err explains.
	unreachable bool
	err         error

	// pool reuses the template's clones; nil creates and drops each.
	pool *pool
}

var (
	setupOnce sync.Once
	shared    server
)

// New returns a pool (models.Open, at most 4 connections, session time zone
// UTC) to a fresh database with the schema applied. The pool is closed and
// the database dropped when the test ends.
func New(t testing.TB) *sqlx.DB {
	t.Helper()
	dsn := NewDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	db, err := models.Open(ctx, dsn, dbConns)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() }) // runs before the drop registered by NewDSN
	return db
}

// NewDSN returns the URL of a fresh database with the schema applied, for
// code under test that opens its own connections. The database is dropped,
// with any connection still open to it, when the test ends.
func NewDSN(t testing.TB) string {
	t.Helper()
	s := setup(t)
	return s.create(t, s.template)
}

// NewEmptyDSN returns the URL of a fresh database without any schema, for
// tests of the migrations themselves. It is dropped when the test ends.
func NewEmptyDSN(t testing.TB) string {
	t.Helper()
	s := setup(t)
	return s.create(t, "template0")
}

// setup connects to the server and builds the template once per process; it
// skips or fails t when that is impossible.
func setup(t testing.TB) *server {
	t.Helper()
	setupOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		shared.init(ctx)
	})
	shared.require(t)
	return &shared
}

// require skips or fails t unless s is ready: an unreachable server skips
// the test, or fails it when CI=true; any other setup error fails it.
func (s *server) require(t testing.TB) {
	t.Helper()
	switch {
	case s.unreachable:
		testenv.Missing(t, "pgtest: PostgreSQL", s.err, "set PGTEST_URL")
	case s.err != nil:
		t.Fatalf("pgtest: %v", s.err)
	}
}

// init fills s, recording the first failure in s.err.
func (s *server) init(ctx context.Context) {
	raw := os.Getenv("PGTEST_URL")
	if raw == "" {
		raw = DefaultURL
	}
	base, err := url.Parse(raw)
	if err != nil || (base.Scheme != "postgres" && base.Scheme != "postgresql") {
		s.err = fmt.Errorf("PGTEST_URL must be a postgres:// URL, got %q", raw)
		return
	}
	s.base = base
	s.admin, err = sql.Open("postgres", raw)
	if err != nil {
		s.err = fmt.Errorf("open %s: %w", base.Redacted(), err)
		return
	}
	s.admin.SetMaxOpenConns(adminConns)
	if err := s.admin.PingContext(ctx); err != nil {
		s.unreachable = true
		s.err = fmt.Errorf("connect to %s: %w", base.Redacted(), err)
		return
	}
	s.template = templatePrefix + models.MigrationsHash()[:12]
	s.pool = &pool{prefix: freePrefixOf(s.template)}
	if err := s.ensureTemplate(ctx); err != nil {
		s.err = fmt.Errorf("template %s: %w", s.template, err)
		return
	}
	// Best effort: a leftover this user may not drop (another user's, on
	// a shared server) must not stop the tests.
	_ = s.sweepFree(ctx)
}

// dsn returns the URL of database name on the configured server.
func (s *server) dsn(name string) string {
	u := *s.base
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// create gives t a new uniquely named database cloned from template and
// registers its removal with t. A clone of the migrated template comes from
// the pool of emptied databases when one is free, and goes back to it when
// t ends; any other database is created and dropped.
func (s *server) create(t testing.TB, template string) string {
	t.Helper()
	name := testPrefix + randomHex(t, 8)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	pooled := template == s.template && s.pool != nil
	if !pooled || !s.claim(ctx, name) {
		q := "CREATE DATABASE " + pq.QuoteIdentifier(name) + " TEMPLATE " + pq.QuoteIdentifier(template)
		if _, err := s.admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("pgtest: create database %s from %s: %v", name, template, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		if pooled {
			free, err := s.release(ctx, name)
			if err != nil {
				t.Logf("pgtest: %s not reused: %v", name, err)
			}
			if free != "" {
				return
			}
		}
		if err := s.drop(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	if pooled {
		if err := s.learn(ctx, name); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	return s.dsn(name)
}

// drop removes database name, ending any session still connected to it.
func (s *server) drop(ctx context.Context, name string) error {
	q := "DROP DATABASE IF EXISTS " + pq.QuoteIdentifier(name) + " WITH (FORCE)"
	if _, err := s.admin.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// randomHex returns n random bytes as lowercase hex.
func randomHex(t testing.TB, n int) string {
	t.Helper()
	return randomHexString(n)
}

// randomHexString returns n random bytes as lowercase hex. crypto/rand's
// Read never fails.
func randomHexString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
