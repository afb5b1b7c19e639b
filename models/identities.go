package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Identity is a row of user_identities: a user's account at an identity
// provider, named by the pair (Provider, Subject), which is unique.
type Identity struct {
	ID       uuid.UUID `db:"id"`
	UserID   uuid.UUID `db:"user_id"`
	Provider string    `db:"provider"`
	// Subject is the provider's stable id of the person (its sub claim).
	Subject string `db:"subject"`
	// Email and EmailVerified are what the provider said at the last
	// sign-in; they never decide who is who.
	Email         *string    `db:"email"`
	EmailVerified bool       `db:"email_verified"`
	CreatedAt     time.Time  `db:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at"`
	LastLoginAt   *time.Time `db:"last_login_at"`
}

func (i *Identity) normalize() {
	utc(&i.CreatedAt)
	utc(&i.UpdatedAt)
	utcPtr(&i.LastLoginAt)
}

const identityColumns = `id, user_id, provider, subject, email, email_verified, created_at, updated_at, last_login_at`

// identityQueries is the query table of IdentityStore.
var identityQueries = struct{ insert, bySubject, byUser, seen, loggedIn, remove, count string }{
	insert: `INSERT INTO user_identities (` + identityColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7, NULL)`,
	bySubject: `SELECT ` + identityColumns + ` FROM user_identities WHERE provider = $1 AND subject = $2`,
	byUser:    `SELECT ` + identityColumns + ` FROM user_identities WHERE user_id = $1 ORDER BY created_at, id`,
	seen: `UPDATE user_identities SET email = $2, email_verified = $3, updated_at = $4
		WHERE id = $1`,
	loggedIn: `UPDATE user_identities SET last_login_at = $2 WHERE id = $1`,
	remove:   `DELETE FROM user_identities WHERE user_id = $1 AND id = $2 RETURNING ` + identityColumns,
	count:    `SELECT count(*) FROM user_identities WHERE user_id = $1`,
}

// IdentityStore reads and writes user_identities. Its zero value sends
// plain queries; it is safe for concurrent use.
type IdentityStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s IdentityStore) Prepared(pool *sqlx.DB) IdentityStore {
	return IdentityStore{q: preparedOn(pool, queriesOf(&identityQueries)...)}
}

// Insert stores i, created (and updated) at i.CreatedAt. ErrDuplicate
// means the pair (provider, subject) belongs to a user already.
func (s IdentityStore) Insert(ctx context.Context, db DB, i *Identity) error {
	_, err := s.q.exec(ctx, db, identityQueries.insert, i.ID, i.UserID, i.Provider, i.Subject, i.Email, i.EmailVerified, i.CreatedAt)
	i.UpdatedAt = i.CreatedAt
	return storeErr("insert identity", err)
}

// BySubject returns the identity (provider, subject), or ErrNotFound.
func (s IdentityStore) BySubject(ctx context.Context, db DB, provider, subject string) (*Identity, error) {
	return getRow[Identity](ctx, s.q, db, "identity by subject", identityQueries.bySubject, provider, subject)
}

// ByUser lists the user's identities, oldest first.
func (s IdentityStore) ByUser(ctx context.Context, db DB, user uuid.UUID) ([]Identity, error) {
	return selectRows[Identity](ctx, s.q, db, "identities of user", identityQueries.byUser, user)
}

// Seen records what the provider says of the identity id now: its e-mail
// and whether it is verified. ErrNotFound means no such identity.
func (s IdentityStore) Seen(ctx context.Context, db DB, id uuid.UUID, email *string, verified bool, now time.Time) error {
	return execOne(ctx, s.q, db, "identity seen", identityQueries.seen, id, email, verified, now)
}

// LoggedIn records a login through the identity id at now.
func (s IdentityStore) LoggedIn(ctx context.Context, db DB, id uuid.UUID, now time.Time) error {
	return execOne(ctx, s.q, db, "identity logged in", identityQueries.loggedIn, id, now)
}

// Remove deletes the user's identity id and returns it; ErrNotFound means
// the user has no such identity.
func (s IdentityStore) Remove(ctx context.Context, db DB, user, id uuid.UUID) (*Identity, error) {
	return getRow[Identity](ctx, s.q, db, "remove identity", identityQueries.remove, user, id)
}

// Count returns how many identities the user has.
func (s IdentityStore) Count(ctx context.Context, db DB, user uuid.UUID) (int, error) {
	var n int
	if err := s.q.get(ctx, db, &n, identityQueries.count, user); err != nil {
		return 0, storeErr("count identities", err)
	}
	return n, nil
}
