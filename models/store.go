package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// storeErr maps a driver error of operation op to what stores return: "no
// rows" becomes ErrNotFound, a unique violation ErrDuplicate, and anything
// else is wrapped with the operation name, and marked unavailable
// (dependency.ErrUnavailable) when PostgreSQL could not be reached.
func storeErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case IsUniqueViolation(err):
		return ErrDuplicate
	default:
		return unavailable(fmt.Errorf("models: %s: %w", op, err))
	}
}

// execCount runs a statement and returns the number of rows it touched.
func execCount(ctx context.Context, q querier, db DB, op, query string, args ...any) (int64, error) {
	res, err := q.exec(ctx, db, query, args...)
	if err != nil {
		return 0, storeErr(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, storeErr(op, err)
	}
	return n, nil
}

// execOne runs a statement that must touch a row; none is ErrNotFound.
func execOne(ctx context.Context, q querier, db DB, op, query string, args ...any) error {
	n, err := execCount(ctx, q, db, op, query, args...)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// getRow runs query, which returns at most one row, into a new T and
// normalizes it (its times in UTC); no row is ErrNotFound, and any other
// failure is op's error (see storeErr).
func getRow[T any, P interface {
	*T
	normalize()
}](ctx context.Context, q querier, db DB, op, query string, args ...any) (*T, error) {
	row := new(T)
	if err := q.get(ctx, db, row, query, args...); err != nil {
		return nil, storeErr(op, err)
	}
	P(row).normalize()
	return row, nil
}

// selectRows runs query into a list of T and normalizes each row, as
// getRow does one; no row is an empty (nil) list.
func selectRows[T any, P interface {
	*T
	normalize()
}](ctx context.Context, q querier, db DB, op, query string, args ...any) ([]T, error) {
	var list []T
	if err := q.sel(ctx, db, &list, query, args...); err != nil {
		return nil, storeErr(op, err)
	}
	for i := range list {
		P(&list[i]).normalize()
	}
	return list, nil
}

// purgeInBatches runs query, a DELETE of at most $2 rows older than $1
// (before) that skips rows locked by another transaction, batch rows per
// statement so that no statement holds many locks for long, until a
// statement deletes fewer than batch rows. It returns how many rows it
// deleted, with ctx's error if ctx ended between batches. Called with a
// *sqlx.DB, every batch commits on its own; op names the purge in errors.
func purgeInBatches(ctx context.Context, q querier, db DB, op, query string, before time.Time, batch int) (int64, error) {
	if batch < 1 {
		return 0, fmt.Errorf("models: %s: batch %d, want at least 1", op, batch)
	}
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := execCount(ctx, q, db, op, query, before, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}

// nullIfZero binds the zero time as NULL, so that SQL can substitute a
// default with COALESCE.
func nullIfZero(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// jsonText binds a JSON document (nil is NULL) as text. A []byte would be
// sent in binary format when the DSN sets lib/pq's binary_parameters=yes,
// and jsonb rejects raw JSON as binary input ("unsupported jsonb version
// number 123"); text works in both modes.
func jsonText(doc []byte) any {
	if doc == nil {
		return nil
	}
	return string(doc)
}

// utc converts *t to UTC in place. lib/pq returns timestamptz values in a
// fixed zone named "" even when the session zone is UTC; after utc they
// compare equal (==, reflect.DeepEqual) to times built with time.UTC.
func utc(t *time.Time) {
	*t = t.UTC()
}

// utcPtr is utc for a nullable timestamp.
func utcPtr(t **time.Time) {
	if *t != nil {
		u := (*t).UTC()
		*t = &u
	}
}

// isIdent reports whether s is a non-empty run of a-z and underscores, the
// only table and column names stores accept into their SQL text.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}
