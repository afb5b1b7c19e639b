package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// ByEmailSQL exposes the SQL of ByEmail for EXPLAIN tests.
func (s *AccountStore) ByEmailSQL() string { return s.byEmail }

// LockOwnerAndReadSQL exposes the SQL of LockOwnerAndRead for EXPLAIN tests.
func (s *SessionStore) LockOwnerAndReadSQL() string { return s.lockOwnerAndRead }

// ByIDWithSessionSQL exposes the SQL of ByIDWithSession for EXPLAIN tests.
func (s *AccountStore) ByIDWithSessionSQL() string { return s.byIDWithSession }

// ByIDWithAssuranceSQL exposes the SQL of ByIDWithSession with assurance.
func (s *AccountStore) ByIDWithAssuranceSQL() string { return s.byIDWithAssurance }

// LiveSessionsSQL exposes the SQL of LiveSessions for EXPLAIN tests.
func (s *AccountStore) LiveSessionsSQL() string { return s.liveSessions }

// ListSQL exposes the SQL of List for EXPLAIN tests.
func (s *AccountStore) ListSQL() string { return s.list }

// ByHashSQL exposes the SQL of ByHash for EXPLAIN tests.
func (s *SessionStore) ByHashSQL() string { return s.byHash }

// TwoStatementRotator is the rotation Rotate does not use, kept so that
// BenchmarkRotate can compare it: INSERT the successor, then UPDATE the old
// row WHERE revoked_at IS NULL (the foreign key is not deferrable, so the
// INSERT must come first).
type TwoStatementRotator struct {
	sessions *SessionStore
	update   string
}

// NewTwoStatementRotator builds the two-statement rotation for t.
func NewTwoStatementRotator(t OwnerTables) *TwoStatementRotator {
	return &TwoStatementRotator{
		sessions: NewSessionStore(t),
		update: `UPDATE ` + t.Sessions + ` SET revoked_at = $2, replaced_by_session_id = $3,
			last_used_at = $2, updated_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
	}
}

// Rotate behaves like SessionStore.Rotate, except that on ErrConflict the
// successor row stays until the caller rolls back.
func (r *TwoStatementRotator) Rotate(ctx context.Context, db DB, oldID uuid.UUID, next *Session, now time.Time) error {
	if next.CreatedAt.IsZero() {
		next.CreatedAt = now
	}
	if err := r.sessions.Create(ctx, db, next); err != nil {
		return err
	}
	n, err := execCount(ctx, querier{}, db, "rotate session", r.update, oldID, now, next.ID)
	if err == nil && n == 0 {
		return ErrConflict
	}
	return err
}

// The tests of this package run every prepared store strictly: SQL outside
// the store's query table panics.
func init() { strictQueries = true }

// preparedOf counts the statements q holds prepared.
func preparedOf(q querier) int {
	n := 0
	if q.stmts != nil {
		q.stmts.Range(func(_, v any) bool {
			if _, ok := v.(*sqlx.Stmt); ok {
				n++
			}
			return true
		})
	}
	return n
}

// QueryTable reports how many queries the store's table holds and how many
// of them are prepared.
func (s *SessionStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&s.sessionQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s *AccountStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&s.accountQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (ps PostStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&postQueries)), preparedOf(ps.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s TokenStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&tokenQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s EventStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&eventQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s PasskeyStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&passkeyQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s CeremonyStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&ceremonyQueries)), preparedOf(s.q)
}

// QueryTable: see SessionStore.QueryTable.
func (s FactorStore) QueryTable() (total, prepared int) {
	return len(queriesOf(&factorQueries)), preparedOf(s.q)
}

// QueriesOf exposes queriesOf to the tests.
func QueriesOf(table any) []string { return queriesOf(table) }

// PoolWaiting returns how many callers wait at the gate of db, a pool
// built by Open, or -1 when it has none.
func PoolWaiting(db *sqlx.DB) int {
	if g := gateOf(db); g != nil {
		return g.waiting()
	}
	return -1
}

// GatedExec runs query on db as a store's statement runs: through the gate
// of db's pool, when it has one.
func GatedExec(ctx context.Context, db DB, query string, args ...any) error {
	_, err := querier{}.exec(ctx, db, query, args...)
	return err
}
