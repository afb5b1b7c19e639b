package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Token purposes of account_tokens.
const (
	PurposePasswordReset = "password_reset"
	PurposeEmailVerify   = "email_verify"
	// PurposeEmailChange confirms a new address (Email, where it was
	// mailed); PurposeEmailRevert puts the old one (Email) back after a
	// change. A revert token is never voided: only its use or its expiry
	// ends it, so that an owner whose address was changed by someone else
	// keeps the way back whatever that someone does next.
	PurposeEmailChange = "email_change"
	PurposeEmailRevert = "email_revert"
)

// OneTimeToken is a row of account_tokens. The token itself is never
// stored: TokenHash is the lowercase hex SHA-256 of its 64 characters.
type OneTimeToken struct {
	ID        uuid.UUID  `db:"id"`
	OwnerType string     `db:"owner_type"`
	OwnerID   uuid.UUID  `db:"owner_id"`
	Purpose   string     `db:"purpose"`
	TokenHash string     `db:"token_hash"`
	ExpiresAt time.Time  `db:"expires_at"`
	UsedAt    *time.Time `db:"used_at"`
	CreatedAt time.Time  `db:"created_at"`
	// Email is the address an e-mail change or revert token is about
	// (nil for the other purposes).
	Email *string `db:"email"`
}

func (t *OneTimeToken) normalize() {
	utc(&t.ExpiresAt)
	utc(&t.CreatedAt)
	utcPtr(&t.UsedAt)
}

const tokenColumns = `id, owner_type, owner_id, purpose, token_hash, expires_at, used_at, created_at, email`

// TokenStore reads and writes account_tokens: one small API for every
// one-time-token flow (password reset, e-mail verification, and later
// ones). Its zero value is ready; it is safe for concurrent use.
type TokenStore struct {
	q querier
}

// tokenQueries is the query table of TokenStore.
var tokenQueries = struct {
	void, voidAll, voidRevertsSince, insert, insertRevert, live, consume, countSince, reserved, lockAddress, countToSince string
}{
	// A revert token is created after every earlier revert token of its
	// owner, whatever the clock of the instance that issues it says: the
	// issues are serialised by the owner's row lock, and this order (not
	// the clocks') decides which revert tokens a revert voids.
	insertRevert: `INSERT INTO account_tokens (` + tokenColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, NULL, GREATEST($7::timestamptz, (SELECT max(created_at) + interval '1 microsecond'
			FROM account_tokens WHERE owner_type = $2 AND owner_id = $3 AND purpose = 'email_revert')), $8)
		RETURNING created_at`,
	// The key of the advisory lock of an address: the first 64 bits of
	// its SHA-256, under a name space of its own.
	lockAddress: `SELECT pg_advisory_xact_lock(('x' || substr(encode(sha256(convert_to('account_tokens:' || lower($1), 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint)`,
	countToSince: `SELECT count(*) FROM account_tokens
		WHERE owner_type = $1 AND purpose = $2 AND lower(email) = lower($3) AND created_at > $4`,
	reserved: `SELECT EXISTS (SELECT 1 FROM account_tokens
		WHERE owner_type = $1 AND purpose = 'email_revert' AND lower(email) = lower($2) AND owner_id <> $3
		AND used_at IS NULL AND expires_at > $4)`,
	voidRevertsSince: `UPDATE account_tokens SET expires_at = $4
		WHERE owner_type = $1 AND owner_id = $2 AND purpose = 'email_revert' AND created_at >= $3
		AND used_at IS NULL AND expires_at > $4`,
	// Neither void touches email_revert tokens (see PurposeEmailRevert).
	void: `UPDATE account_tokens SET expires_at = $4
		WHERE owner_type = $1 AND owner_id = $2 AND purpose = $3 AND purpose <> 'email_revert'
		AND used_at IS NULL AND expires_at > $4`,
	voidAll: `UPDATE account_tokens SET expires_at = $3
		WHERE owner_type = $1 AND owner_id = $2 AND purpose <> 'email_revert' AND used_at IS NULL AND expires_at > $3`,
	insert: `INSERT INTO account_tokens (` + tokenColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8)`,
	live: `SELECT ` + tokenColumns + ` FROM account_tokens
		WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3`,
	consume: `UPDATE account_tokens SET used_at = $3
		WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
		RETURNING ` + tokenColumns,
	countSince: `SELECT count(*) FROM account_tokens
		WHERE owner_type = $1 AND owner_id = $2 AND purpose = $3 AND created_at > $4`,
}

// Issue stores t (ID, owner, purpose, hash, expiry, creation time and,
// for the e-mail purposes, the address set by the caller) after voiding, by
// expiring them at t.CreatedAt, the owner's earlier unused tokens of the
// same purpose (except revert tokens, which are never voided). A revert
// token's creation time is moved, when needed, just past the owner's
// latest revert token (and t.CreatedAt set to it), so that creation order
// is issue order across instances whose clocks differ. Run it in a transaction with
// whatever decided to issue (a bound checked with CountSince under a lock
// of the owner, say).
func (s TokenStore) Issue(ctx context.Context, db DB, t *OneTimeToken) error {
	if _, err := execCount(ctx, s.q, db, "void tokens", tokenQueries.void, t.OwnerType, t.OwnerID, t.Purpose, t.CreatedAt); err != nil {
		return err
	}
	if t.Purpose == PurposeEmailRevert {
		err := s.q.get(ctx, db, &t.CreatedAt, tokenQueries.insertRevert, t.ID, t.OwnerType, t.OwnerID, t.Purpose, t.TokenHash, t.ExpiresAt, t.CreatedAt, t.Email)
		utc(&t.CreatedAt)
		return storeErr("issue token", err)
	}
	_, err := s.q.exec(ctx, db, tokenQueries.insert, t.ID, t.OwnerType, t.OwnerID, t.Purpose, t.TokenHash, t.ExpiresAt, t.CreatedAt, t.Email)
	return storeErr("issue token", err)
}

// Live returns the token of purpose whose hash is hash if it is live at
// now (unused, unexpired, not voided), changing nothing; ErrNotFound
// otherwise. It lets a flow refuse a bad token before costly work; the
// token is still taken by Consume, which decides between concurrent uses.
func (s TokenStore) Live(ctx context.Context, db DB, purpose, hash string, now time.Time) (*OneTimeToken, error) {
	return getRow[OneTimeToken](ctx, s.q, db, "live token", tokenQueries.live, hash, purpose, now)
}

// VoidPurpose voids, by expiring them at now, the owner's unused tokens of
// purpose (never email_revert ones), and returns how many: what Issue does
// before it stores a token, for a request that stores none.
func (s TokenStore) VoidPurpose(ctx context.Context, db DB, ownerType string, owner uuid.UUID, purpose string, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void tokens", tokenQueries.void, ownerType, owner, purpose, now)
}

// VoidRevertsSince voids, by expiring them at now, the owner's unused
// email_revert tokens created at or after since, and returns how many: the
// use of a revert token ends those of the changes made after its own.
func (s TokenStore) VoidRevertsSince(ctx context.Context, db DB, ownerType string, owner uuid.UUID, since, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void revert tokens", tokenQueries.voidRevertsSince, ownerType, owner, since, now)
}

// VoidAll voids, by expiring them at now, the owner's unused tokens of
// every purpose but email_revert, and returns how many. Run it in the transaction of the
// change that makes them void (a password change, a logout of every
// session, a deactivation, ...).
func (s TokenStore) VoidAll(ctx context.Context, db DB, ownerType string, owner uuid.UUID, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void all tokens", tokenQueries.voidAll, ownerType, owner, now)
}

// Consume marks the live token of purpose whose hash is hash used at now
// and returns it. ErrNotFound means unknown, of another purpose, expired,
// voided or used already. Run it in the transaction of the change the
// token authorises: a rollback makes the token usable again.
func (s TokenStore) Consume(ctx context.Context, db DB, purpose, hash string, now time.Time) (*OneTimeToken, error) {
	return getRow[OneTimeToken](ctx, s.q, db, "consume token", tokenQueries.consume, hash, purpose, now)
}

// CountSince counts the owner's tokens of purpose created after since,
// voided and used ones included: the mail bounds count what was sent.
func (s TokenStore) CountSince(ctx context.Context, db DB, ownerType string, owner uuid.UUID, purpose string, since time.Time) (int, error) {
	var n int
	if err := s.q.get(ctx, db, &n, tokenQueries.countSince, ownerType, owner, purpose, since); err != nil {
		return 0, storeErr("count tokens", err)
	}
	return n, nil
}

// CountToSince counts the tokens of purpose of every owner of ownerType
// that carry email and were created after since, voided, used and dead
// ones included, after locking the address for the rest of the
// transaction db (which must be one): the bound of what one address
// receives, whoever asks, counted so that concurrent requests cannot pass
// it together.
func (s TokenStore) CountToSince(ctx context.Context, db DB, ownerType, purpose, email string, since time.Time) (int, error) {
	if _, err := s.q.exec(ctx, db, tokenQueries.lockAddress, email); err != nil {
		return 0, storeErr("lock address", err)
	}
	var n int
	if err := s.q.get(ctx, db, &n, tokenQueries.countToSince, ownerType, purpose, email, since); err != nil {
		return 0, storeErr("count tokens to", err)
	}
	return n, nil
}

// Reserved reports whether email is the address of a live email_revert
// token (unused, unexpired) of an owner of ownerType other than except:
// the address an owner may still take back, which nobody else may take
// meanwhile. Run it in the transaction that takes the address, after the
// statement that takes it, so that a change committed meanwhile is seen.
func (s TokenStore) Reserved(ctx context.Context, db DB, ownerType, email string, except uuid.UUID, now time.Time) (bool, error) {
	var ok bool
	if err := s.q.get(ctx, db, &ok, tokenQueries.reserved, ownerType, email, except, now); err != nil {
		return false, storeErr("reserved address", err)
	}
	return ok, nil
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s TokenStore) Prepared(pool *sqlx.DB) TokenStore {
	return TokenStore{q: preparedOn(pool, queriesOf(&tokenQueries)...)}
}
