package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"github.com/actionkit/actionkit/dependency"
)

// ErrNotFound reports that no row matched a lookup.
var ErrNotFound = errors.New("models: not found")

// ErrDuplicate reports that a write would break a uniqueness rule.
var ErrDuplicate = errors.New("models: duplicate")

// Dependency names PostgreSQL in the errors marked unavailable
// (dependency.Error.Name), and so in metrics and logs.
const Dependency = "postgresql"

// DB is what a store needs from a database handle. Both *sqlx.DB and *sqlx.Tx
// satisfy it, so a store method works the same inside and outside Transact.
type DB interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	NamedExecContext(ctx context.Context, query string, arg any) (sql.Result, error)
}

var (
	_ DB = (*sqlx.DB)(nil)
	_ DB = (*sqlx.Tx)(nil)
)

// connMaxIdleTime closes pooled connections that have been idle this long.
const connMaxIdleTime = 5 * time.Minute

// Open connects to PostgreSQL with the lib/pq driver and returns a pool of at
// most maxConns connections (see DB_MAX_CONNS in the README). The DSN may be a
// URL or key=value pairs; unless it names a time zone, every session is
// started with timezone=UTC so timestamps come back in UTC. Open pings the
// server with ctx before it returns.
func Open(ctx context.Context, dsn string, maxConns int) (*sqlx.DB, error) {
	if maxConns < 1 {
		return nil, fmt.Errorf("models: open: maxConns %d, want at least 1", maxConns)
	}
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	withUTC(&cfg)
	// Parameters travel with the query in one round trip instead of two
	// (lib/pq otherwise asks the server for their types first). Callers bind
	// JSON as text, since []byte would then be sent as binary data.
	cfg.BinaryParameters = true
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(connMaxIdleTime)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("models: open: ping %s: %w", describe(cfg), err)
	}
	keepGate(db, maxConns)
	return db, nil
}

// withUTC sets the session time zone to UTC unless the DSN already set one.
func withUTC(cfg *pq.Config) {
	for k := range cfg.Runtime {
		if strings.EqualFold(k, "timezone") {
			return
		}
	}
	if cfg.Runtime == nil {
		cfg.Runtime = map[string]string{}
	}
	cfg.Runtime["timezone"] = "UTC"
}

// describe names the server and database of cfg for error messages, without
// the password.
func describe(cfg pq.Config) string {
	return fmt.Sprintf("database %q on %s:%d", cfg.Database, cfg.Host, cfg.Port)
}

// Transact runs fn inside a transaction. It commits when fn returns nil and
// rolls back when fn returns an error or panics; a panic is re-raised after
// the rollback. The error of fn is returned as is, so errors.Is works on it.
func Transact(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) (err error) {
	if g := gateOf(db); g != nil {
		// The transaction holds its connection until it ends: so does it
		// its slot of the pool's gate.
		if err := g.enter(ctx); err != nil {
			return unavailable(fmt.Errorf("models: begin: %w", err))
		}
		defer g.leave()
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return unavailable(fmt.Errorf("models: begin: %w", err))
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		rbErr := tx.Rollback()
		if rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) && err != nil {
			err = errors.Join(err, fmt.Errorf("models: rollback: %w", rbErr))
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committed = true
	if err := tx.Commit(); err != nil {
		return unavailable(fmt.Errorf("models: commit: %w", err))
	}
	return nil
}

// IsUniqueViolation reports whether err is, or wraps, a PostgreSQL
// unique_violation (SQLSTATE 23505).
func IsUniqueViolation(err error) bool {
	return pq.As(err, pqerror.UniqueViolation) != nil
}

// Unreachable reports whether err means that PostgreSQL could not be
// reached or would not serve: a connection refused, reset or timed out, a
// connection the driver found broken, a deadline that ran out waiting for
// the server or the pool, or the server's own "connection exception"
// (class 08), "insufficient resources" (class 53, such as too many
// connections) and "shutting down or starting up" (57P01, 57P02, 57P03)
// answers. Any other error, a syntax error or a constraint violation,
// is a bug or a decision, not an outage.
func Unreachable(err error) bool {
	if dependency.Network(err) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var pe *pq.Error
	if !errors.As(err, &pe) || len(pe.Code) != 5 {
		return false
	}
	switch pe.Code {
	case pqerror.AdminShutdown, pqerror.CrashShutdown, pqerror.CannotConnectNow:
		return true
	}
	class := pe.Code.Class()
	return class == pqerror.ClassConnectionException || class == pqerror.ClassInsufficientResources
}

// unavailable marks err with dependency.Unavailable when PostgreSQL was
// unreachable, so that the request is answered 503 and not 500.
func unavailable(err error) error {
	if Unreachable(err) {
		return dependency.Unavailable(Dependency, err)
	}
	return err
}
