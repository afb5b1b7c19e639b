package models

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Challenge is a row of login_challenges: a login whose first factor
// passed and whose second is owed. The handle given to the client is never
// stored: TokenHash is the lowercase hex SHA-256 of its 64 characters.
type Challenge struct {
	ID        uuid.UUID `db:"id"`
	OwnerType string    `db:"owner_type"`
	OwnerID   uuid.UUID `db:"owner_id"`
	TokenHash string    `db:"token_hash"`
	// FirstFactor is the method of the first step (MethodPassword,
	// MethodPasskey or MethodFederated), and Provider its identity
	// provider for MethodFederated.
	FirstFactor string  `db:"first_factor"`
	Provider    *string `db:"provider"`
	// Client and Platform are those of the login: the session opened by
	// the second step gets them.
	Client    string  `db:"client"`
	Platform  string  `db:"platform"`
	UserAgent *string `db:"user_agent"`
	IPAddress *string `db:"ip_address"`
	// ResponseVersion is the API version of the first step, whose answer
	// the second step gives on success.
	ResponseVersion int16 `db:"response_version"`
	// Attempts counts the wrong second factors presented.
	Attempts  int        `db:"attempts"`
	ExpiresAt time.Time  `db:"expires_at"`
	UsedAt    *time.Time `db:"used_at"`
	CreatedAt time.Time  `db:"created_at"`
}

func (c *Challenge) normalize() {
	utc(&c.ExpiresAt)
	utc(&c.CreatedAt)
	utcPtr(&c.UsedAt)
}

const challengeColumns = `id, owner_type, owner_id, token_hash, first_factor, provider, client, platform,
	user_agent, ip_address, response_version, attempts, expires_at, used_at, created_at`

// challengeQueries is the query table of ChallengeStore. A challenge is
// live while it is unused, unexpired and has fewer wrong attempts than the
// caller's maximum ($max below); every change to one is conditional on it
// being live, so that concurrent requests cannot both spend it.
var challengeQueries = struct{ insert, live, consume, fail, voidAll, purge string }{
	insert: `INSERT INTO login_challenges (` + challengeColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $12, NULL, $13)`,
	live: `SELECT ` + challengeColumns + ` FROM login_challenges
		WHERE token_hash = $1 AND owner_type = $2 AND used_at IS NULL AND expires_at > $3 AND attempts < $4`,
	consume: `UPDATE login_challenges SET used_at = $3
		WHERE id = $1 AND used_at IS NULL AND expires_at > $3 AND attempts < $2`,
	fail: `UPDATE login_challenges SET attempts = attempts + 1
		WHERE id = $1 AND used_at IS NULL AND expires_at > $3 AND attempts < $2
		RETURNING attempts`,
	voidAll: `UPDATE login_challenges SET used_at = $3
		WHERE owner_type = $1 AND owner_id = $2 AND used_at IS NULL`,
	purge: `DELETE FROM login_challenges WHERE id IN (SELECT id FROM login_challenges
		WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
}

// ChallengeStore reads and writes login_challenges. Its zero value is
// ready; it is safe for concurrent use.
type ChallengeStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s ChallengeStore) Prepared(pool *sqlx.DB) ChallengeStore {
	return ChallengeStore{q: preparedOn(pool, queriesOf(&challengeQueries)...)}
}

// Insert stores c (every column set by the caller but attempts and
// used_at, which start at 0 and NULL).
func (s ChallengeStore) Insert(ctx context.Context, db DB, c *Challenge) error {
	_, err := s.q.exec(ctx, db, challengeQueries.insert, c.ID, c.OwnerType, c.OwnerID, c.TokenHash, c.FirstFactor,
		c.Provider, c.Client, c.Platform, c.UserAgent, c.IPAddress, c.ResponseVersion, c.ExpiresAt, c.CreatedAt)
	return storeErr("insert login challenge", err)
}

// Live returns the live challenge of owner type ownerType whose hash is
// hash: unused, expiring after now, with fewer than maxAttempts wrong
// attempts. ErrNotFound means none.
func (s ChallengeStore) Live(ctx context.Context, db DB, ownerType, hash string, now time.Time, maxAttempts int) (*Challenge, error) {
	return getRow[Challenge](ctx, s.q, db, "live login challenge", challengeQueries.live, hash, ownerType, now, maxAttempts)
}

// Consume marks the challenge id used at now if it is still live, and
// reports whether it did. Run it in the transaction that completes the
// login: a rollback makes it live again.
func (s ChallengeStore) Consume(ctx context.Context, db DB, id uuid.UUID, maxAttempts int, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "consume login challenge", challengeQueries.consume, id, maxAttempts, now)
	return n > 0, err
}

// Fail counts a wrong attempt on the challenge id if it is still live and
// returns the attempts counted so far; ok is false when it was not live
// (used, expired or burnt meanwhile). The challenge is burnt once the
// count reaches maxAttempts.
func (s ChallengeStore) Fail(ctx context.Context, db DB, id uuid.UUID, maxAttempts int, now time.Time) (attempts int, ok bool, err error) {
	err = s.q.get(ctx, db, &attempts, challengeQueries.fail, id, maxAttempts, now)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, storeErr("fail login challenge", err)
	}
	return attempts, true, nil
}

// VoidAll ends every pending challenge of the owner at now (after a
// password change, a logout-all or a reset of its second factor), and
// returns how many.
func (s ChallengeStore) VoidAll(ctx context.Context, db DB, ownerType string, owner uuid.UUID, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void login challenges", challengeQueries.voidAll, ownerType, owner, now)
}

// Purge deletes the challenges that expired before the cutoff, batch rows
// per statement, and returns how many.
func (s ChallengeStore) Purge(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge login challenges", challengeQueries.purge, before, batch)
}
