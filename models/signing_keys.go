package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// The purposes of a signing key (signing_keys.purpose).
const (
	// SigningKeyAccess is an EdDSA or ES256 key of access tokens (which
	// also signs the ID tokens of clients whose id_token_alg is
	// ACCESS_TOKEN_ALG).
	SigningKeyAccess = "access"
	// SigningKeyIDToken is an RS256 key of ID tokens, never of access
	// tokens.
	SigningKeyIDToken = "id_token"
)

// SigningKey is a row of signing_keys: an EdDSA or ES256 key of access
// tokens, or an RS256 key of ID tokens (Purpose). PrivateKeyCiphertext is
// sealed by the caller; the store never sees the private key.
type SigningKey struct {
	ID                   uuid.UUID  `db:"id"`
	Kid                  string     `db:"kid"`
	Alg                  string     `db:"alg"`
	Purpose              string     `db:"purpose"` // SigningKeyAccess (also when empty) or SigningKeyIDToken
	PublicKey            []byte     `db:"public_key"`
	PrivateKeyCiphertext []byte     `db:"private_key_ciphertext"`
	CreatedAt            time.Time  `db:"created_at"`
	ActivatedAt          time.Time  `db:"activated_at"`
	RetiredAt            *time.Time `db:"retired_at"`
}

func (k *SigningKey) normalize() {
	utc(&k.CreatedAt)
	utc(&k.ActivatedAt)
	utcPtr(&k.RetiredAt)
}

// purpose is p, or SigningKeyAccess when p is empty.
func purpose(p string) string {
	if p == "" {
		return SigningKeyAccess
	}
	return p
}

const signingKeyColumns = `id, kid, alg, purpose, public_key, private_key_ciphertext, created_at, activated_at, retired_at`

// signingKeyQueries is the query table of SigningKeyStore.
var signingKeyQueries = struct{ published, current, insert, retireDue, retireAll, deleteRetired string }{
	published: `SELECT ` + signingKeyColumns + ` FROM signing_keys
		WHERE retired_at IS NULL OR retired_at > $1 ORDER BY activated_at, id`,
	current: `SELECT ` + signingKeyColumns + ` FROM signing_keys WHERE purpose = $1 AND retired_at IS NULL`,
	// Any unique violation, the one-current-key-per-purpose index above
	// all, means another process got there first.
	insert: `INSERT INTO signing_keys (` + signingKeyColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL) ON CONFLICT DO NOTHING`,
	// The current key of purpose $5 is due when it was activated at or
	// before $2, or, when $3, when it is of another algorithm than $4.
	retireDue: `UPDATE signing_keys SET retired_at = GREATEST(activated_at, $1)
		WHERE purpose = $5 AND retired_at IS NULL AND (activated_at <= $2 OR ($3 AND alg <> $4))`,
	retireAll:     `UPDATE signing_keys SET retired_at = GREATEST(activated_at, $1) WHERE retired_at IS NULL`,
	deleteRetired: `DELETE FROM signing_keys WHERE retired_at < $1`,
}

// SigningKeyStore reads and writes signing_keys. Its zero value is ready;
// it is safe for concurrent use.
type SigningKeyStore struct{}

// Published returns the keys not retired by since (retired_at after since,
// or none), oldest activation first.
func (SigningKeyStore) Published(ctx context.Context, db DB, since time.Time) ([]SigningKey, error) {
	return selectRows[SigningKey](ctx, querier{}, db, "published signing keys", signingKeyQueries.published, since)
}

// Current returns the current (not retired) key of purpose p
// (SigningKeyAccess or SigningKeyIDToken), or nil when there is none.
func (SigningKeyStore) Current(ctx context.Context, db DB, p string) (*SigningKey, error) {
	k, err := getRow[SigningKey](ctx, querier{}, db, "current signing key", signingKeyQueries.current, purpose(p))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return k, err
}

// InsertFirst stores k as the current key of its purpose unless there is
// one already, and reports whether it did. Any number of processes may
// call it at once: one key is stored.
func (SigningKeyStore) InsertFirst(ctx context.Context, db DB, k *SigningKey) (bool, error) {
	n, err := execCount(ctx, querier{}, db, "insert signing key", signingKeyQueries.insert,
		k.ID, k.Kid, k.Alg, purpose(k.Purpose), k.PublicKey, k.PrivateKeyCiphertext, k.CreatedAt, k.ActivatedAt)
	return n == 1, err
}

// Rotate makes next the current key of its purpose when the current one
// of that purpose is due: activated at or before due, or (when switchAlg)
// of another algorithm than next. The current key retires when next
// activates (next.ActivatedAt). It reports whether it rotated; when
// several processes rotate at once, one does and the others find nothing
// due.
func (s SigningKeyStore) Rotate(ctx context.Context, db *sqlx.DB, next *SigningKey, due time.Time, switchAlg bool) (bool, error) {
	rotated := false
	err := Transact(ctx, db, func(tx *sqlx.Tx) error {
		n, err := execCount(ctx, querier{}, tx, "retire signing key", signingKeyQueries.retireDue,
			next.ActivatedAt, due, switchAlg, next.Alg, purpose(next.Purpose))
		if err != nil || n == 0 {
			return err
		}
		if rotated, err = s.InsertFirst(ctx, tx, next); err == nil && !rotated {
			err = errors.New("models: rotate: the new signing key was not stored")
		}
		return err
	})
	return rotated, err
}

// RetireAll retires every key, of either purpose, that is not retired yet
// at at (or at its activation, if that is later), for a deployment that
// went back to HS256, and returns how many it retired.
func (SigningKeyStore) RetireAll(ctx context.Context, db DB, at time.Time) (int64, error) {
	return execCount(ctx, querier{}, db, "retire signing keys", signingKeyQueries.retireAll, at)
}

// DeleteRetired deletes the keys retired before before, private halves
// and all, and returns how many it deleted.
func (SigningKeyStore) DeleteRetired(ctx context.Context, db DB, before time.Time) (int64, error) {
	return execCount(ctx, querier{}, db, "delete retired signing keys", signingKeyQueries.deleteRetired, before)
}
