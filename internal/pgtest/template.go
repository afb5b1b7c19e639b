package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lib/pq"

	"github.com/actionkit/actionkit/models"
)

// ensureTemplate makes sure the migrated template database exists. Test
// binaries run as parallel processes, so the check and the build happen under
// a session advisory lock on the maintenance database.
func (s *server) ensureTemplate(ctx context.Context) (err error) {
	conn, err := s.admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, templateLockKey); err != nil {
		return fmt.Errorf("advisory lock: %w", err)
	}
	defer func() {
		_, unlockErr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, templateLockKey)
		err = errors.Join(err, unlockErr)
	}()

	var isTemplate bool
	row := conn.QueryRowContext(ctx, `SELECT datistemplate FROM pg_database WHERE datname = $1`, s.template)
	switch err := row.Scan(&isTemplate); {
	case err == nil && isTemplate:
		return nil // built earlier, by this or another process
	case err == nil:
		// Left half-built by a process that died; build it again.
		if err := s.drop(ctx, s.template); err != nil {
			return err
		}
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("look up: %w", err)
	}
	return s.buildTemplate(ctx, conn)
}

// buildTemplate creates the template, migrates it, closes every connection to
// it and marks it as a template that accepts no connections, so that nothing
// can stay connected and break CREATE DATABASE ... TEMPLATE.
func (s *server) buildTemplate(ctx context.Context, conn *sql.Conn) error {
	quoted := pq.QuoteIdentifier(s.template)
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+quoted+" TEMPLATE template0"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if err := migrateDSN(ctx, s.dsn(s.template)); err != nil {
		return err
	}
	q := "ALTER DATABASE " + quoted + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("mark as template: %w", err)
	}
	return nil
}

// migrateDSN applies the migrations to the database at dsn and closes every
// connection it opened.
func migrateDSN(ctx context.Context, dsn string) error {
	db, err := models.Open(ctx, dsn, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := models.Migrate(ctx, db.DB); err != nil {
		return err
	}
	return db.Close()
}
