package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// The purposes of a WebAuthn ceremony.
const (
	CeremonyRegister       = "register"       // a new passkey of the owner
	CeremonyLogin          = "login"          // a passwordless login (no owner yet)
	CeremonySecondFactor   = "second_factor"  // the second step of a login
	CeremonyReauthenticate = "reauthenticate" // re-authentication in a session
)

// Ceremony is a row of webauthn_challenges: the server's half of one
// WebAuthn ceremony. SessionData is the library's record of the challenge
// (a JSON object); the other columns say what the ceremony is bound to.
type Ceremony struct {
	ID        uuid.UUID `db:"id"`
	OwnerType string    `db:"owner_type"`
	// Binding says what the ceremony is for and whom.
	Binding
	SessionData []byte     `db:"session_data"`
	ExpiresAt   time.Time  `db:"expires_at"`
	UsedAt      *time.Time `db:"used_at"`
	CreatedAt   time.Time  `db:"created_at"`
}

// Binding is what a ceremony is bound to: its purpose, its owner (nil for
// a passwordless login, whose owner is not known yet), the login
// challenge of a second step, the session of a registration or a
// re-authentication. An answer is taken only for the binding it was
// issued for.
type Binding struct {
	Purpose        string     `db:"purpose"`
	OwnerID        *uuid.UUID `db:"owner_id"`
	LoginChallenge *uuid.UUID `db:"login_challenge_id"`
	Session        *uuid.UUID `db:"session_id"`
}

// ceremonyQueries is the query table of CeremonyStore. A ceremony is live
// while it is unused and unexpired; spending it is one conditional
// statement, so that of concurrent answers exactly one gets it.
var ceremonyQueries = struct{ insert, spend, known, purge string }{
	insert: `INSERT INTO webauthn_challenges (id, owner_type, owner_id, purpose, login_challenge_id, session_id,
		session_data, expires_at, used_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, NULL, $9)`,
	spend: `UPDATE webauthn_challenges SET used_at = $7
		WHERE id = $1 AND owner_type = $2 AND purpose = $3 AND owner_id IS NOT DISTINCT FROM $4::uuid
			AND login_challenge_id IS NOT DISTINCT FROM $5::uuid AND session_id IS NOT DISTINCT FROM $6::uuid
			AND used_at IS NULL AND expires_at > $7
		RETURNING session_data::text`,
	known: `SELECT count(*) FROM webauthn_challenges
		WHERE id = $1 AND owner_type = $2 AND purpose = $3 AND owner_id IS NOT DISTINCT FROM $4::uuid
			AND login_challenge_id IS NOT DISTINCT FROM $5::uuid AND session_id IS NOT DISTINCT FROM $6::uuid`,
	purge: `DELETE FROM webauthn_challenges WHERE id IN (SELECT id FROM webauthn_challenges
		WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
}

// CeremonyStore reads and writes webauthn_challenges. Its zero value is
// ready; it is safe for concurrent use.
type CeremonyStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s CeremonyStore) Prepared(pool *sqlx.DB) CeremonyStore {
	return CeremonyStore{q: preparedOn(pool, queriesOf(&ceremonyQueries)...)}
}

// Insert stores c (every column set by the caller but used_at).
func (s CeremonyStore) Insert(ctx context.Context, db DB, c *Ceremony) error {
	b := c.Binding
	_, err := s.q.exec(ctx, db, ceremonyQueries.insert, c.ID, c.OwnerType, b.OwnerID, b.Purpose, b.LoginChallenge, b.Session,
		jsonText(c.SessionData), c.ExpiresAt, c.CreatedAt)
	return storeErr("insert webauthn challenge", err)
}

// Spend marks the ceremony id of owner type ownerType used at now if it is
// live and was issued for b, and returns its session data. ErrNotFound
// means it was not: see Known for why.
func (s CeremonyStore) Spend(ctx context.Context, db DB, id uuid.UUID, ownerType string, b Binding, now time.Time) ([]byte, error) {
	var data string
	err := s.q.get(ctx, db, &data, ceremonyQueries.spend, id, ownerType, b.Purpose, b.OwnerID, b.LoginChallenge, b.Session, now)
	if err != nil {
		return nil, storeErr("spend webauthn challenge", err)
	}
	return []byte(data), nil
}

// Known reports whether the ceremony id of owner type ownerType was issued
// for b, live or not.
func (s CeremonyStore) Known(ctx context.Context, db DB, id uuid.UUID, ownerType string, b Binding) (bool, error) {
	var n int
	err := s.q.get(ctx, db, &n, ceremonyQueries.known, id, ownerType, b.Purpose, b.OwnerID, b.LoginChallenge, b.Session)
	if err != nil {
		return false, storeErr("known webauthn challenge", err)
	}
	return n > 0, nil
}

// Purge deletes the ceremonies that expired before the cutoff, batch rows
// per statement, and returns how many.
func (s CeremonyStore) Purge(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge webauthn challenges", ceremonyQueries.purge, before, batch)
}
