package models

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// ErrConflict reports that a conditional write found its row changed by
// another transaction (for example, a session already rotated or revoked).
// The caller should roll its transaction back.
var ErrConflict = errors.New("models: the row changed concurrently")

// Session is a row of user_sessions or admin_sessions: one refresh token.
// A session (a login) is a chain of rows, one per rotation: ID names the
// row, SessionID the session.
type Session struct {
	ID uuid.UUID `db:"id"`
	// OwnerID is the user_id or admin_id column, selected as owner_id.
	OwnerID             uuid.UUID  `db:"owner_id"`
	ReplacedBySessionID *uuid.UUID `db:"replaced_by_session_id"`
	// RefreshTokenHash is the lowercase hex SHA-256 of the raw refresh token.
	RefreshTokenHash string     `db:"refresh_token_hash"`
	ExpiresAt        time.Time  `db:"expires_at"`
	RevokedAt        *time.Time `db:"revoked_at"`
	LastUsedAt       *time.Time `db:"last_used_at"`
	// UserAgent is a JSON document (jsonb); nil is NULL. The caller
	// guarantees valid JSON. PostgreSQL stores jsonb parsed, so it reads
	// back in jsonb's canonical form (spacing, key order, last duplicate key
	// wins), not byte for byte as written.
	UserAgent []byte     `db:"user_agent"`
	IPAddress *string    `db:"ip_address"`
	Client    string     `db:"client"`
	Platform  string     `db:"platform"`
	DeletedAt *time.Time `db:"deleted_at"`
	CreatedAt time.Time  `db:"created_at"`
	UpdatedAt time.Time  `db:"updated_at"`
	// SessionID is the session id of the API (the sid claim, the
	// Caller's SessionID): the id of the row that the register or login
	// opening this chain of rotations created. Rotations copy it, so it
	// stays the same across refreshes. Its column is chain_id.
	SessionID uuid.UUID `db:"chain_id"`
	// LoginAt is when the chain's register or login happened.
	LoginAt time.Time `db:"login_at"`
	// TheftDetectedAt is set on every row of a chain whose replay triggered
	// the theft response, so that it triggers once.
	TheftDetectedAt *time.Time `db:"theft_detected_at"`
	// RefreshWindowAt is when the chain's current refresh budget window
	// opened (nil before its first refresh), and RefreshCount how many
	// refreshes it counted in it: see RefreshBudget.
	RefreshWindowAt *time.Time `db:"refresh_window_at"`
	RefreshCount    int        `db:"refresh_count"`
	// Assurance is how the session was authenticated; rotations copy it.
	Assurance
}

// normalize converts every timestamp of s to UTC.
func (s *Session) normalize() {
	utc(&s.ExpiresAt)
	utc(&s.CreatedAt)
	utc(&s.UpdatedAt)
	utcPtr(&s.RevokedAt)
	utcPtr(&s.LastUsedAt)
	utcPtr(&s.DeletedAt)
	utc(&s.LoginAt)
	utcPtr(&s.TheftDetectedAt)
	utcPtr(&s.RefreshWindowAt)
	utc(&s.AuthenticatedAt)
	utcPtr(&s.FactorAt)
}

// SessionState is the state of a session derived from its columns; it is
// not stored.
type SessionState string

// The derived session states (docs/security.md, Refresh rotation and theft).
const (
	// SessionActive: not revoked and expiring after now.
	SessionActive SessionState = "active"
	// SessionExpired: not revoked and expires_at <= now.
	SessionExpired SessionState = "expired"
	// SessionRevoked: revoked_at set, replaced_by_session_id null.
	SessionRevoked SessionState = "revoked"
	// SessionRotated: revoked_at and replaced_by_session_id both set.
	SessionRotated SessionState = "rotated"
)

// State returns the state of s at now. A session is expired from the
// instant expires_at equals now.
func (s *Session) State(now time.Time) SessionState {
	switch {
	case s.RevokedAt != nil && s.ReplacedBySessionID != nil:
		return SessionRotated
	case s.RevokedAt != nil:
		return SessionRevoked
	case !s.ExpiresAt.After(now):
		return SessionExpired
	default:
		return SessionActive
	}
}

// SessionStore reads and writes the sessions of one owner type. Its SQL is
// built once by NewSessionStore; it is safe for concurrent use.
type SessionStore struct {
	sessionQueries
	q querier
}

// sessionQueries is the query table of SessionStore.
type sessionQueries struct {
	create, byHash, byID, rotate, revoke, revokeByHash, revokeAll, listByOwner, purge string
	lockOwnerAndRead, rotateLive, markReplaced                                        string
	listLive, revokeChain, markTheft, liveInChain                                     string
	reassure, revokeOthers                                                            string
}

// Prepared returns a copy of the store whose queries are prepared on pool
// (and in pool's transactions): see querier.
func (s *SessionStore) Prepared(pool *sqlx.DB) *SessionStore {
	c := *s
	c.q = preparedOn(pool, queriesOf(&s.sessionQueries)...)
	return &c
}

// NewSessionStore returns a store for the sessions in t.Sessions. It panics
// if a name in t is not a plain lowercase identifier.
func NewSessionStore(t OwnerTables) *SessionStore {
	t.mustValidate()
	rest := `replaced_by_session_id, refresh_token_hash, expires_at, revoked_at,
		last_used_at, user_agent, ip_address, client, platform, deleted_at, created_at, updated_at,
		chain_id, login_at, theft_detected_at, refresh_window_at, refresh_count,
		auth_methods, aal, authenticated_at, provider, factor_authenticated_at`
	insertCols := `id, ` + t.OwnerColumn + `, ` + rest
	sel := `SELECT id, ` + t.OwnerColumn + ` AS owner_id, ` + rest + ` FROM ` + t.Sessions
	revoke := `UPDATE ` + t.Sessions + ` SET revoked_at = $1, updated_at = $1 WHERE revoked_at IS NULL AND `
	return &SessionStore{sessionQueries: sessionQueries{
		create: `INSERT INTO ` + t.Sessions + ` (` + insertCols + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
				COALESCE($13, now()), COALESCE($14, $13, now()), $15, COALESCE($16, $13, now()), $17, $18, $19,
				$20, $21, COALESCE($22, $13, now()), $23, $24)
			RETURNING created_at, updated_at, login_at, authenticated_at`,
		byHash:       sel + ` WHERE refresh_token_hash = $1`,
		byID:         sel + ` WHERE id = $1`,
		rotate:       rotateSQL(t.Sessions, insertCols),
		revoke:       revoke + `id = $2`,
		revokeByHash: revoke + t.OwnerColumn + ` = $2 AND refresh_token_hash = $3 RETURNING chain_id`,
		revokeAll:    revoke + t.OwnerColumn + ` = $2 RETURNING chain_id`,
		revokeChain:  revoke + t.OwnerColumn + ` = $2 AND chain_id = $3`,
		revokeOthers: revoke + t.OwnerColumn + ` = $2 AND chain_id <> $3 RETURNING chain_id`,
		liveInChain:  sel + ` WHERE chain_id = $2 AND revoked_at IS NULL AND ` + t.OwnerColumn + ` = $1`,
		listLive: sel + ` WHERE ` + t.OwnerColumn + ` = $1 AND revoked_at IS NULL AND expires_at > $2
			ORDER BY login_at DESC, chain_id DESC`,
		// Through the owner's index: a rare statement, on the theft path only.
		markTheft: `UPDATE ` + t.Sessions + ` SET theft_detected_at = $3, updated_at = $3
			WHERE ` + t.OwnerColumn + ` = $1 AND chain_id = $2 AND theft_detected_at IS NULL`,
		listByOwner: sel + ` WHERE ` + t.OwnerColumn + ` = $1 ORDER BY created_at, id`,
		// SKIP LOCKED: a purge never waits for a refresh holding a row, and
		// two purgers share the work instead of queueing behind each other.
		purge: `DELETE FROM ` + t.Sessions + ` WHERE id IN (SELECT id FROM ` + t.Sessions + `
			WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
		lockOwnerAndRead: lockOwnerAndReadSQL(t, rest),
		rotateLive:       rotateLiveSQL(t),
		reassure: `UPDATE ` + t.Sessions + ` SET auth_methods = $3, aal = $4, authenticated_at = $5, updated_at = $5,
			factor_authenticated_at = $6 WHERE id = $1 AND ` + t.OwnerColumn + ` = $2 AND revoked_at IS NULL`,
		markReplaced: `UPDATE ` + t.Sessions + ` SET replaced_by_session_id = $3, updated_at = $4
			WHERE id = $1 AND ` + t.OwnerColumn + ` = $2 AND revoked_at IS NOT NULL AND replaced_by_session_id IS NULL`,
	}}
}

// rotateSQL is the one-statement rotation: lock the old row if it is not
// revoked, insert the successor only then, and point the old row at it.
//
// All parts of a statement with data-modifying CTEs share one snapshot, but
// the non-deferrable replaced_by_session_id foreign key is checked by an
// after-trigger at the end of the statement, which sees the inserted row:
// this passes on PostgreSQL 15. When the old row is missing or revoked
// (also by a concurrent transaction that committed while we waited for the
// lock: READ COMMITTED re-checks the locked row), old_row is empty, nothing
// is inserted and the UPDATE reports 0 rows.
//
// One statement rather than an INSERT and an UPDATE (the two-statement form
// is kept in export_test.go, and BenchmarkRotate compares them): it is no
// slower and, on a conflict, writes nothing (no successor row, index
// entries or dead tuple to roll back, even without a transaction).
func rotateSQL(table, insertCols string) string {
	return `WITH old_row AS (
			SELECT id, chain_id, login_at, auth_methods, aal, authenticated_at, provider, factor_authenticated_at
			FROM ` + table + ` WHERE id = $1 AND revoked_at IS NULL FOR NO KEY UPDATE
		), new_row AS (
			INSERT INTO ` + table + ` (` + insertCols + `)
			SELECT $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
				old_row.chain_id, old_row.login_at, NULL, $17, $18,
				old_row.auth_methods, old_row.aal, old_row.authenticated_at, old_row.provider,
				old_row.factor_authenticated_at FROM old_row
			RETURNING id
		)
		UPDATE ` + table + ` AS cur SET revoked_at = $16, replaced_by_session_id = new_row.id,
			last_used_at = $16, updated_at = $16
		FROM new_row WHERE cur.id = $1 AND cur.revoked_at IS NULL`
}

// Create inserts sess with every column as given, including its ID. A zero
// CreatedAt is filled by the database with now(); a zero UpdatedAt takes the
// value of CreatedAt; both are set on sess from RETURNING. A nil SessionID
// makes the row the first of a new chain (SessionID = ID), and a zero LoginAt
// or AuthenticatedAt takes the value of CreatedAt. ErrDuplicate means the
// refresh-token hash (or the ID) is already in use.
func (s *SessionStore) Create(ctx context.Context, db DB, sess *Session) error {
	if sess.SessionID == uuid.Nil {
		sess.SessionID = sess.ID
	}
	row := s.q.rowx(ctx, db, s.create, sess.ID, sess.OwnerID, sess.ReplacedBySessionID,
		sess.RefreshTokenHash, sess.ExpiresAt, sess.RevokedAt, sess.LastUsedAt, jsonText(sess.UserAgent),
		sess.IPAddress, sess.Client, sess.Platform, sess.DeletedAt,
		nullIfZero(sess.CreatedAt), nullIfZero(sess.UpdatedAt), sess.SessionID, nullIfZero(sess.LoginAt),
		sess.TheftDetectedAt, sess.RefreshWindowAt, sess.RefreshCount,
		sess.Methods, sess.Level, nullIfZero(sess.AuthenticatedAt), sess.Provider, sess.FactorAt)
	if err := row.Scan(&sess.CreatedAt, &sess.UpdatedAt, &sess.LoginAt, &sess.AuthenticatedAt); err != nil {
		return storeErr("create session", err)
	}
	sess.normalize()
	return nil
}

// ByHash returns the session whose refresh_token_hash is hash, in any
// state, or ErrNotFound.
func (s *SessionStore) ByHash(ctx context.Context, db DB, hash string) (*Session, error) {
	return getRow[Session](ctx, s.q, db, "session by hash", s.byHash, hash)
}

// ByID returns the session with id, in any state, or ErrNotFound.
func (s *SessionStore) ByID(ctx context.Context, db DB, id uuid.UUID) (*Session, error) {
	return getRow[Session](ctx, s.q, db, "session by id", s.byID, id)
}

// Rotate replaces the session oldID by next in one statement: next is
// inserted (its zero CreatedAt and UpdatedAt become now), and the old
// session gets revoked_at, last_used_at and updated_at = now and
// replaced_by_session_id = next.ID. It does so only while the old session
// is not revoked; otherwise (also when oldID does not exist) nothing is
// written and Rotate returns ErrConflict. next continues the old session's
// chain: the database copies chain_id, login_at and the assurance from the
// old row (the caller sets next.SessionID, next.LoginAt and next.Assurance to
// the same values), while its refresh budget columns are the caller's
// (RefreshBudget.Advance). Call it
// inside a transaction and roll back on any error. ErrDuplicate means
// next's hash or ID is taken.
func (s *SessionStore) Rotate(ctx context.Context, db DB, oldID uuid.UUID, next *Session, now time.Time) error {
	if next.CreatedAt.IsZero() {
		next.CreatedAt = now
	}
	if next.UpdatedAt.IsZero() {
		next.UpdatedAt = next.CreatedAt
	}
	n, err := execCount(ctx, s.q, db, "rotate session", s.rotate, oldID,
		next.ID, next.OwnerID, next.ReplacedBySessionID, next.RefreshTokenHash, next.ExpiresAt,
		next.RevokedAt, next.LastUsedAt, jsonText(next.UserAgent), next.IPAddress, next.Client,
		next.Platform, next.DeletedAt, next.CreatedAt, next.UpdatedAt, now, next.RefreshWindowAt, next.RefreshCount)
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrConflict
	}
	next.normalize()
	return nil
}

// MarkReplaced records that the revoked session id of ownerID was replaced
// by next (which must exist), so that presenting its token later is a
// replay; a session of another owner, not revoked, or already replaced is
// left alone. Password change uses it after revoking every session.
func (s *SessionStore) MarkReplaced(ctx context.Context, db DB, ownerID, id, next uuid.UUID, now time.Time) error {
	_, err := execCount(ctx, s.q, db, "mark session replaced", s.markReplaced, id, ownerID, next, now)
	return err
}

// Revoke sets revoked_at of session id to now if it is not revoked yet and
// reports whether it did. An unknown id reports false.
func (s *SessionStore) Revoke(ctx context.Context, db DB, id uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "revoke session", s.revoke, now, id)
	return n > 0, err
}

// RevokeByHash revokes, as Revoke, the session with hash only if it belongs
// to ownerID, and returns its chain (the session id of the API). Another
// owner's session, or one revoked already, is left alone and reports
// false.
func (s *SessionStore) RevokeByHash(ctx context.Context, db DB, ownerID uuid.UUID, hash string, now time.Time) (uuid.UUID, bool, error) {
	var chain uuid.UUID
	err := s.q.get(ctx, db, &chain, s.revokeByHash, now, ownerID, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, false, nil
	}
	if err != nil {
		return uuid.Nil, false, storeErr("revoke session by hash", err)
	}
	return chain, true, nil
}

// RevokeChain ends the session chain of ownerID: it revokes the chain's
// row that is not revoked yet, and reports whether there was one. A chain
// of another owner, or one ended already, reports false. Lock the owner
// first in the same transaction (LockForUpdate): otherwise a rotation
// committing while this statement waits for the row's lock leaves the
// successor, which the statement's snapshot does not see, alive.
func (s *SessionStore) RevokeChain(ctx context.Context, db DB, ownerID, chain uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "revoke session chain", s.revokeChain, now, ownerID, chain)
	return n > 0, err
}

// RevokeAll revokes every session of ownerID that is not revoked yet and
// returns the chains it ended (one per revoked row); sessions revoked before
// keep their revoked_at. To avoid deadlocks with a concurrent refresh, which
// locks the owner before its session, lock the owner first (LockForUpdate
// or BumpTokenVersion) in the same transaction.
func (s *SessionStore) RevokeAll(ctx context.Context, db DB, ownerID uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	var chains []uuid.UUID
	if err := s.q.sel(ctx, db, &chains, s.revokeAll, now, ownerID); err != nil {
		return nil, storeErr("revoke all sessions", err)
	}
	return chains, nil
}

// RevokeOthers is RevokeAll but for the chain keep, which goes on.
func (s *SessionStore) RevokeOthers(ctx context.Context, db DB, ownerID, keep uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	var chains []uuid.UUID
	if err := s.q.sel(ctx, db, &chains, s.revokeOthers, now, ownerID, keep); err != nil {
		return nil, storeErr("revoke other sessions", err)
	}
	return chains, nil
}

// LiveInChain returns the row of ownerID's session chain that is not
// revoked (whether or not it expired), or ErrNotFound.
func (s *SessionStore) LiveInChain(ctx context.Context, db DB, ownerID, chain uuid.UUID) (*Session, error) {
	return getRow[Session](ctx, s.q, db, "live session of chain", s.liveInChain, ownerID, chain)
}

// Reassure records, on the live session row id of ownerID, how it was
// authenticated again (a re-authentication): its methods, level,
// authentication time and second-factor time become a's (a.Provider is
// kept). ErrNotFound means
// the row is not live any more.
func (s *SessionStore) Reassure(ctx context.Context, db DB, ownerID, id uuid.UUID, a Assurance) error {
	return execOne(ctx, s.q, db, "reassure session", s.reassure, id, ownerID, a.Methods, a.Level, a.AuthenticatedAt, a.FactorAt)
}

// MarkTheft marks every row of ownerID's chain as having triggered the
// theft response at now (rows marked before keep their mark), and reports
// whether it marked any: false means the chain was marked already (by a
// concurrent transaction that committed first, say), or has no row.
func (s *SessionStore) MarkTheft(ctx context.Context, db DB, ownerID, chain uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "mark session theft", s.markTheft, ownerID, chain, now)
	return n > 0, err
}

// ListLive returns the live row (not revoked, expiring after now) of each
// of ownerID's sessions, newest login first.
func (s *SessionStore) ListLive(ctx context.Context, db DB, ownerID uuid.UUID, now time.Time) ([]Session, error) {
	return selectRows[Session](ctx, s.q, db, "list live sessions", s.listLive, ownerID, now)
}

// ListByOwner returns every session of ownerID, in any state, ordered by
// created_at then id.
func (s *SessionStore) ListByOwner(ctx context.Context, db DB, ownerID uuid.UUID) ([]Session, error) {
	return selectRows[Session](ctx, s.q, db, "list sessions", s.listByOwner, ownerID)
}

// PurgeExpired deletes the sessions whose expires_at is before the cutoff,
// batch rows per statement so that no statement holds many locks for long,
// until a statement deletes fewer than batch rows. Rows locked by another
// transaction are skipped (a later purge gets them). It returns how many
// rows it deleted, with ctx's error if ctx ended between batches. Sessions
// that a deleted session had replaced get replaced_by_session_id NULL.
// Called with a *sqlx.DB, every batch commits on its own.
func (s *SessionStore) PurgeExpired(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge expired sessions", s.purge, before, batch)
}
