package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// LiveSession is a live session chain as LiveSessions reads it.
type LiveSession struct {
	// SessionID is the session's id in the API (column chain_id).
	SessionID uuid.UUID `db:"chain_id"`
	// OwnerID is the session's owner.
	OwnerID uuid.UUID `db:"owner_id"`
	// TokenVersion is the owner's token version.
	TokenVersion int64 `db:"token_version"`
	// ExpiresAt is the expiry of the chain's live row.
	ExpiresAt time.Time `db:"expires_at"`
}

// liveSessionsSQL reads the live row of each session chain in $1 (through
// the partial index on chain_id) whose owner is active and not deleted,
// with the owner's token version. As in byIDWithSessionSQL the expiry is
// compared in Go, so that no condition on expires_at can lure the planner
// to another index.
func liveSessionsSQL(t OwnerTables) string {
	return `SELECT s.chain_id, s.` + t.OwnerColumn + ` AS owner_id, o.token_version, s.expires_at
		FROM ` + t.Sessions + ` s JOIN ` + t.Owners + ` o ON o.id = s.` + t.OwnerColumn + `
		WHERE s.chain_id = ANY($1::uuid[]) AND s.revoked_at IS NULL
			AND o.is_active AND o.deleted_at IS NULL`
}

// LiveSessions returns, in one statement, those of the given session
// chains that are live at now (not revoked, not expired) and whose owner is
// active and not soft-deleted, in no particular order. A chain that is
// absent has ended, expired, or is unknown.
func (s *AccountStore) LiveSessions(ctx context.Context, db DB, chains []uuid.UUID, now time.Time) ([]LiveSession, error) {
	ids := make(pq.StringArray, len(chains))
	for i, c := range chains {
		ids[i] = c.String()
	}
	var rows []LiveSession
	if err := s.q.sel(ctx, db, &rows, s.liveSessions, ids); err != nil {
		return nil, storeErr("live sessions", err)
	}
	live := rows[:0]
	for _, r := range rows {
		if r.ExpiresAt.After(now) {
			utc(&r.ExpiresAt)
			live = append(live, r)
		}
	}
	return live, nil
}
