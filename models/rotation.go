package models

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// lockOwnerAndReadSQL reads a session and its owner and locks the owner's
// row only. The session columns are aliased "s.<column>" for sqlx.
func lockOwnerAndReadSQL(t OwnerTables, rest string) string {
	cols := []string{"id", t.OwnerColumn + ":owner_id"}
	for _, c := range strings.Split(rest, ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	aliased := make([]string, len(cols))
	for i, c := range cols {
		name, alias, ok := strings.Cut(c, ":")
		if !ok {
			alias = name
		}
		aliased[i] = `s.` + name + ` AS "s.` + alias + `"`
	}
	return `SELECT ` + accountSelect("o.") + `, ` + strings.Join(aliased, ", ") + `
		FROM ` + t.Owners + ` o JOIN ` + t.Sessions + ` s ON s.` + t.OwnerColumn + ` = o.id
		WHERE s.refresh_token_hash = $1 FOR NO KEY UPDATE OF o`
}

// OwnerAndSession is what LockOwnerAndRead returns.
type OwnerAndSession struct {
	Account
	Session Session `db:"s"`
}

// LockOwnerAndRead reads, in one statement, the session whose
// refresh_token_hash is hash and its owner, and locks the owner's row (FOR
// NO KEY UPDATE) until the transaction ends; ErrNotFound means no session
// has that hash. Only the owner row is locked, so the lock order of every
// session change (owner first, then sessions) holds. When the statement
// had to wait for the owner's lock, the session columns may predate what
// the lock holder changed: Rotate's own check refuses such a stale
// session with ErrConflict, and the caller reads it again with ByHash.
func (s *SessionStore) LockOwnerAndRead(ctx context.Context, db DB, hash string) (*Account, *Session, error) {
	var row OwnerAndSession
	if err := s.q.get(ctx, db, &row, s.lockOwnerAndRead, hash); err != nil {
		return nil, nil, storeErr("lock owner and read session", err)
	}
	row.Account.normalize()
	row.Session.normalize()
	return &row.Account, &row.Session, nil
}

// rotateLiveSQL is the rotation of the common case in one statement. Its
// CTEs lock the owner's row first (old joins owner, so owner is read and
// locked before old), then the session's, which keeps the lock order of
// every other session change. A session that is not live when its lock is
// granted (rotated, revoked or expired meanwhile), or whose chain has spent
// its refresh budget ($8 refreshes in a window opened after $9), drops out
// of old, and nothing is inserted or updated: the statement then returns
// no row. So does a session of the wrong kind: $10 is "" for a first-party
// refresh, which never rotates an OAuth session (client 'oauth'), and the
// client_id of an OAuth refresh, which rotates only an OAuth session
// granted to that client. The successor carries the budget forward as
// RefreshBudget.Advance does.
func rotateLiveSQL(t OwnerTables) string {
	return `WITH o AS (
		SELECT ` + accountColumns + `, mfa_enabled FROM ` + t.Owners + `
		WHERE id = (SELECT ` + t.OwnerColumn + ` FROM ` + t.Sessions + ` WHERE refresh_token_hash = $1)
		FOR NO KEY UPDATE
	), old AS (
		SELECT s.id, s.` + t.OwnerColumn + ` AS owner_id, s.client, s.platform, s.chain_id, s.login_at,
			COALESCE(s.refresh_window_at > $9, false) AS within, s.refresh_window_at, s.refresh_count,
			s.auth_methods, s.aal, s.authenticated_at, s.provider, s.factor_authenticated_at
		FROM ` + t.Sessions + ` s JOIN o ON o.id = s.` + t.OwnerColumn + `
		WHERE s.refresh_token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
			AND o.is_active AND o.deleted_at IS NULL
			AND ($8 <= 0 OR s.refresh_window_at IS NULL OR s.refresh_window_at <= $9 OR s.refresh_count < $8)
			AND (s.client = 'oauth') = ($10::text <> '')
			AND ($10::text = '' OR EXISTS (SELECT 1 FROM oauth_grants g
				WHERE g.session_id = s.chain_id AND g.client_id = $10::text))
		FOR NO KEY UPDATE OF s
	), ins AS (
		INSERT INTO ` + t.Sessions + ` (id, ` + t.OwnerColumn + `, refresh_token_hash, expires_at,
			user_agent, ip_address, client, platform, created_at, updated_at, chain_id, login_at,
			refresh_window_at, refresh_count, auth_methods, aal, authenticated_at, provider,
			factor_authenticated_at)
		SELECT $3, old.owner_id, $4, $5, $6::jsonb, $7, old.client, old.platform, $2, $2,
			old.chain_id, old.login_at,
			CASE WHEN old.within THEN old.refresh_window_at ELSE $2 END,
			CASE WHEN old.within THEN old.refresh_count + 1 ELSE 1 END,
			old.auth_methods, old.aal, old.authenticated_at, old.provider, old.factor_authenticated_at FROM old
		RETURNING id, client, platform, chain_id, login_at, refresh_window_at, refresh_count,
			auth_methods, aal, authenticated_at, provider, factor_authenticated_at
	), upd AS (
		UPDATE ` + t.Sessions + ` SET revoked_at = $2, replaced_by_session_id = ins.id,
			last_used_at = $2, updated_at = $2
		FROM ins, old WHERE ` + t.Sessions + `.id = old.id
		RETURNING ` + t.Sessions + `.id
	)
	SELECT ` + accountSelect("o.") + `, ins.client AS next_client, ins.platform AS next_platform,
		ins.chain_id AS next_chain_id, ins.login_at AS next_login_at,
		ins.refresh_window_at AS next_refresh_window_at, ins.refresh_count AS next_refresh_count,
		ins.auth_methods AS next_auth_methods, ins.aal AS next_aal,
		ins.authenticated_at AS next_authenticated_at, ins.provider AS next_provider,
		ins.factor_authenticated_at AS next_factor_authenticated_at
	FROM o CROSS JOIN ins WHERE EXISTS (SELECT 1 FROM upd)`
}

// rotatedRow is what rotateLiveSQL returns.
type rotatedRow struct {
	Account
	NextClient          string    `db:"next_client"`
	NextPlatform        string    `db:"next_platform"`
	NextSessionID       uuid.UUID `db:"next_chain_id"`
	NextLoginAt         time.Time `db:"next_login_at"`
	NextRefreshWindowAt time.Time `db:"next_refresh_window_at"`
	NextRefreshCount    int       `db:"next_refresh_count"`
	nextAssurance
}

// nextAssurance is the assurance rotateLiveSQL copies to the new row.
type nextAssurance struct {
	Methods         pq.StringArray `db:"next_auth_methods"`
	Level           int16          `db:"next_aal"`
	AuthenticatedAt time.Time      `db:"next_authenticated_at"`
	Provider        *string        `db:"next_provider"`
	FactorAt        *time.Time     `db:"next_factor_authenticated_at"`
}

// RotateLive rotates, in one statement outside any transaction, the
// session whose refresh_token_hash is hash if it is live (not revoked, not
// expired), its owner may authenticate (active, not soft-deleted) and its
// chain has not spent budget: next is inserted with the old session's
// owner, client and platform, and the old session becomes rotated. Next's
// ID, RefreshTokenHash, ExpiresAt, UserAgent and IPAddress come from the
// caller; the rest (the chain, its login time, its budget and its
// assurance included) is filled in.
// ErrNotFound means nothing changed because the session is unknown or not
// live, its owner may not authenticate or its budget is spent: the caller
// then takes the transaction that handles those cases (replays included).
//
// An OAuth session (client 'oauth') is never rotated here: see
// RotateLiveOAuth.
func (s *SessionStore) RotateLive(ctx context.Context, db DB, hash string, next *Session, now time.Time, budget RefreshBudget) (*Account, error) {
	return s.rotateLiveOf(ctx, db, hash, "", next, now, budget)
}

// RotateLiveOAuth is RotateLive for the OAuth session of client: it
// rotates only a session with client 'oauth' whose grant (oauth_grants) is
// of client; any other session is ErrNotFound, with nothing changed.
func (s *SessionStore) RotateLiveOAuth(ctx context.Context, db DB, hash, client string, next *Session, now time.Time, budget RefreshBudget) (*Account, error) {
	if client == "" {
		return nil, ErrNotFound
	}
	return s.rotateLiveOf(ctx, db, hash, client, next, now, budget)
}

func (s *SessionStore) rotateLiveOf(ctx context.Context, db DB, hash, client string, next *Session, now time.Time, budget RefreshBudget) (*Account, error) {
	var row rotatedRow
	limit, closed := budget.args(now)
	err := s.q.get(ctx, db, &row, s.rotateLive, hash, now, next.ID, next.RefreshTokenHash, next.ExpiresAt,
		jsonText(next.UserAgent), next.IPAddress, limit, closed, client)
	if err != nil {
		return nil, storeErr("rotate live session", err)
	}
	row.Account.normalize()
	next.OwnerID, next.Client, next.Platform = row.ID, row.NextClient, row.NextPlatform
	next.SessionID, next.LoginAt = row.NextSessionID, row.NextLoginAt.UTC()
	window := row.NextRefreshWindowAt.UTC()
	next.RefreshWindowAt, next.RefreshCount = &window, row.NextRefreshCount
	a := row.nextAssurance
	next.Assurance = Assurance{Methods: a.Methods, Level: a.Level, AuthenticatedAt: a.AuthenticatedAt.UTC(), Provider: a.Provider,
		FactorAt: a.FactorAt}
	utcPtr(&next.FactorAt)
	next.CreatedAt, next.UpdatedAt, next.RevokedAt, next.LastUsedAt, next.ReplacedBySessionID = now, now, nil, nil, nil
	return &row.Account, nil
}
