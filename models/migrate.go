package models

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationsTable is golang-migrate's bookkeeping table (its default name).
const migrationsTable = "schema_migrations"

// MigrationsFS returns the embedded migration files, named like
// 0001_init.up.sql, at the root of the returned file system.
func MigrationsFS() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("models: embedded migrations: " + err.Error()) // cannot happen: the directory is embedded
	}
	return sub
}

// MigrationsHash returns the hex SHA-256 of the names and contents of every
// migration file. It changes whenever a migration is added or edited, so test
// harnesses can key a migrated template database on it.
func MigrationsHash() string {
	h := sha256.New()
	fsys := MigrationsFS()
	names, err := fs.Glob(fsys, "*.sql") // sorted
	if err != nil {
		panic("models: embedded migrations: " + err.Error())
	}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic("models: embedded migrations: " + err.Error())
		}
		// Length prefixes keep name/content boundaries unambiguous.
		fmt.Fprintf(h, "%d:%s\x00%d:", len(name), name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Migrate applies every pending up-migration to db; a database that is
// already current is a success. It works on one dedicated connection and
// never closes db.
//
// Concurrent callers, in this or other processes, are serialized by the same
// PostgreSQL advisory lock golang-migrate uses. Migrate takes that lock itself
// first, with ctx, so a caller waits for another migrator as long as ctx
// allows (golang-migrate's own 15 s lock timeout never fires, because advisory
// locks are re-entrant within a session). Cancelling ctx stops the wait, or
// stops after the migration that is running.
func Migrate(ctx context.Context, db *sql.DB) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("models: migrate: connect: %w", err)
	}
	defer func() { releaseConn(conn, err) }()

	lockID, err := migrationLockID(ctx, conn)
	if err != nil {
		return fmt.Errorf("models: migrate: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
		return fmt.Errorf("models: migrate: wait for migration lock: %w", err)
	}
	defer func() {
		_, unlockErr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockID)
		if unlockErr != nil {
			err = errors.Join(err, fmt.Errorf("models: migrate: unlock: %w", unlockErr))
		}
	}()
	return runUp(ctx, conn)
}

// runUp applies the pending migrations over conn.
func runUp(ctx context.Context, conn *sql.Conn) error {
	// WithConnection, unlike WithInstance, leaves the *sql.DB alone on Close;
	// the driver is still never closed here because conn is ours to release.
	drv, err := postgres.WithConnection(ctx, conn, &postgres.Config{MigrationsTable: migrationsTable})
	if err != nil {
		return fmt.Errorf("models: migrate: driver: %w", err)
	}
	src, err := iofs.New(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("models: migrate: source: %w", err)
	}
	defer src.Close()
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		return fmt.Errorf("models: migrate: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			m.GracefulStop <- true
		case <-done:
		}
	}()
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("models: migrate: up: %w", err)
	}
	return ctx.Err()
}

// migrationLockID returns the advisory lock key golang-migrate's postgres
// driver derives for the current database and schema.
func migrationLockID(ctx context.Context, conn *sql.Conn) (string, error) {
	var dbName string
	var schema sql.NullString
	row := conn.QueryRowContext(ctx, `SELECT current_database(), current_schema()`)
	if err := row.Scan(&dbName, &schema); err != nil {
		return "", fmt.Errorf("read current database: %w", err)
	}
	if !schema.Valid {
		return "", errors.New("no current schema (check search_path)")
	}
	id, err := database.GenerateAdvisoryLockId(dbName, schema.String, migrationsTable)
	if err != nil {
		return "", fmt.Errorf("lock id: %w", err)
	}
	return id, nil
}

// releaseConn returns conn to its pool, or discards it after a failure so no
// session state (such as a half-acquired advisory lock) outlives Migrate.
func releaseConn(conn *sql.Conn, failure error) {
	if failure != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = conn.Close()
}
