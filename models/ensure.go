package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// maintenanceDB is the database EnsureDatabase connects to when it has to
// create the target.
const maintenanceDB = "postgres"

// EnsureDatabase creates the database named in dsn if it does not exist.
// The DSN may be a URL (postgres://user@host:port/name?sslmode=disable) or
// key=value pairs, and must name the database. A missing database is created
// through the "postgres" maintenance database with the same credentials; a
// concurrent creator winning the race counts as success. Any other failure,
// such as an unreachable server or missing CREATEDB privilege, is returned.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return fmt.Errorf("models: ensure database: %w", err)
	}
	if cfg.Database == "" {
		return errors.New("models: ensure database: the DSN names no database")
	}
	err = ping(ctx, cfg)
	if err == nil {
		return nil
	}
	if pq.As(err, pqerror.InvalidCatalogName) == nil {
		return fmt.Errorf("models: ensure database: connect to %s: %w", describe(cfg), err)
	}

	admin := cfg.Clone()
	admin.Database = maintenanceDB
	db, err := openConfig(admin)
	if err != nil {
		return fmt.Errorf("models: ensure database: %w", err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(cfg.Database))
	// 42P04 is the friendly answer to a concurrent creator; PostgreSQL may
	// instead report the race as a unique violation on its catalog.
	if err != nil && pq.As(err, pqerror.DuplicateDatabase, pqerror.UniqueViolation) == nil {
		return fmt.Errorf("models: ensure database: create %q via %s: %w", cfg.Database, describe(admin), err)
	}
	return nil
}

// ping opens one connection described by cfg, pings it and closes it.
func ping(ctx context.Context, cfg pq.Config) error {
	db, err := openConfig(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// openConfig returns a single-connection pool for cfg without connecting.
func openConfig(cfg pq.Config) (*sql.DB, error) {
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	return db, nil
}
