package models_test

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

var tables = []string{"account_tokens", "admin_sessions", "admins", "login_challenges", "mfa_recovery_codes", "mfa_totp",
	"oauth_clients", "oauth_codes", "oauth_consents", "oauth_grants", "oauth_requests", "oidc_flows",
	"posts", "security_events", "signing_keys", "user_identities", "user_sessions", "users", "webauthn_challenges",
	"webauthn_credentials", "webauthn_user_handles", "webhook_deliveries", "webhooks"}

// checkSchema verifies that the migration is recorded once, clean, and that
// every table exists.
func checkSchema(t *testing.T, db *sqlx.DB) {
	t.Helper()
	var rows []struct {
		Version int64 `db:"version"`
		Dirty   bool  `db:"dirty"`
	}
	if err := db.SelectContext(testCtx(t), &rows, `SELECT version, dirty FROM schema_migrations`); err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	if want := latestMigration(t); len(rows) != 1 || rows[0].Version != want || rows[0].Dirty {
		t.Errorf("schema_migrations: got %+v, want one clean row at version %d", rows, want)
	}
	if got := publicTables(t, db); !slices.Equal(got, tables) {
		t.Errorf("tables: got %v, want %v", got, tables)
	}
}

// publicTables lists the tables of the public schema except schema_migrations.
func publicTables(t *testing.T, db *sqlx.DB) []string {
	t.Helper()
	var got []string
	err := db.SelectContext(testCtx(t), &got, `SELECT tablename FROM pg_tables
		WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	return got
}

func TestMigrateFreshDatabase(t *testing.T) {
	t.Parallel()
	db := openDSN(t, pgtest.NewEmptyDSN(t))
	ctx := testCtx(t)
	if err := models.Migrate(ctx, db.DB); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	checkSchema(t, db)
	if err := models.Migrate(ctx, db.DB); err != nil {
		t.Fatalf("second Migrate (no change): got %v, want nil", err)
	}
	// Migrate must leave the caller's pool open and usable.
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("ping after Migrate: got %v, want nil", err)
	}
	if got := db.Stats().InUse; got != 0 {
		t.Errorf("connections in use after Migrate: got %d, want 0", got)
	}
}

func TestMigrateConcurrent(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewEmptyDSN(t)
	const callers = 4
	dbs := make([]*sqlx.DB, callers) // one pool each, as separate processes would have
	for i := range dbs {
		dbs[i] = openDSN(t, dsn)
	}
	ctx := testCtx(t)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, db := range dbs {
		wg.Go(func() {
			<-start
			errs[i] = models.Migrate(ctx, db.DB)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate #%d: got %v, want nil", i, err)
		}
	}
	// A second application of 0001 would have failed on CREATE TABLE.
	checkSchema(t, dbs[0])
}

// TestMigrateWaitsOnMigrateLock holds golang-migrate's own advisory lock
// (as the migrate CLI or another process would) and checks that Migrate
// waits for it, gives up with its context, and succeeds once it is free.
func TestMigrateWaitsOnMigrateLock(t *testing.T) {
	t.Parallel()
	db := openDSN(t, pgtest.NewEmptyDSN(t))
	ctx := testCtx(t)
	var dbName string
	if err := db.GetContext(ctx, &dbName, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	lockID, err := database.GenerateAdvisoryLockId(dbName, "public", "schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	holder, err := db.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	err = models.Migrate(short, db.DB)
	if err == nil {
		t.Fatal("Migrate while the lock is held: got nil, want an error")
	}
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("Migrate gave up after %v, want about 300ms", waited)
	}
	if got := publicTables(t, db); len(got) != 0 {
		t.Errorf("tables while locked: got %v, want none", got)
	}

	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, lockID); err != nil {
		t.Fatal(err)
	}
	if err := models.Migrate(ctx, db.DB); err != nil {
		t.Fatalf("Migrate after unlock: got %v, want nil", err)
	}
	checkSchema(t, db)
}

func TestMigrateCancelledContext(t *testing.T) {
	t.Parallel()
	db := openDSN(t, pgtest.NewEmptyDSN(t))
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	if err := models.Migrate(ctx, db.DB); !errors.Is(err, context.Canceled) {
		t.Errorf("Migrate with cancelled context: got %v, want context.Canceled", err)
	}
}

func TestMigrationsDown(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	conn, err := db.Conn(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	drv, err := postgres.WithConnection(testCtx(t), conn, &postgres.Config{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(models.MigrationsFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if got := publicTables(t, db); len(got) != 0 {
		t.Errorf("tables after Down: got %v, want none", got)
	}
	if err := m.Up(); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	checkSchema(t, db)
}

// latestMigration is the highest version among the embedded migrations.
func latestMigration(t *testing.T) int64 {
	t.Helper()
	entries, err := fs.ReadDir(models.MigrationsFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	var latest int64
	for _, e := range entries {
		digits, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			t.Fatalf("migration %s has no version", e.Name())
		}
		latest = max(latest, v)
	}
	return latest
}

func TestMigrationFiles(t *testing.T) {
	hash := models.MigrationsHash()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(hash) {
		t.Errorf("MigrationsHash: got %q, want 64 hex digits", hash)
	}
	if again := models.MigrationsHash(); again != hash {
		t.Errorf("MigrationsHash second call: got %q, want %q", again, hash)
	}
	src, err := iofs.New(models.MigrationsFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	versions := 0
	for v, err := src.First(); err == nil; v, err = src.Next(v) {
		versions++
		up, _, err := src.ReadUp(v)
		if err != nil {
			t.Errorf("migration %d: no up file: %v", v, err)
			continue
		}
		up.Close()
		down, _, err := src.ReadDown(v)
		if err != nil {
			t.Errorf("migration %d: no down file: %v", v, err)
			continue
		}
		down.Close()
	}
	if versions == 0 {
		t.Error("migrations: got none, want at least one")
	}
}
