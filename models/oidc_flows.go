package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// The results a flow can end in: the login of an existing user, or of a
// user the flow created.
const (
	FlowLogin    = "login"
	FlowRegister = "register"
)

// Flow is a row of oidc_flows: a sign-in or link through an identity
// provider. The secrets handed out (state, browser binding, nonce, result
// code) are stored only as their lowercase hex SHA-256; the PKCE verifier
// is stored encrypted.
type Flow struct {
	ID        uuid.UUID `db:"id"`
	StateHash string    `db:"state_hash"`
	Provider  string    `db:"provider"`
	// BindingHash is the hash of the oidc-flow cookie the flow is bound
	// to; nil for an app's flow, bound by CodeChallenge instead.
	BindingHash        *string `db:"binding_hash"`
	NonceHash          string  `db:"nonce_hash"`
	VerifierCiphertext []byte  `db:"verifier_ciphertext"`
	VerifierNonce      []byte  `db:"verifier_nonce"`
	RedirectTo         string  `db:"redirect_to"`
	// Client is the client type that started the flow: only it may
	// exchange the result.
	Client string `db:"client"`
	// CodeChallenge is the app's PKCE S256 challenge, nil when none was
	// given.
	CodeChallenge *string `db:"code_challenge"`
	// LinkUserID and LinkSessionID name the user and session a link flow
	// attaches the identity to; nil for a sign-in.
	LinkUserID    *uuid.UUID `db:"link_user_id"`
	LinkSessionID *uuid.UUID `db:"link_session_id"`
	ExpiresAt     time.Time  `db:"expires_at"`
	UsedAt        *time.Time `db:"used_at"`
	// The result of a sign-in: the hash of the one-time code handed to
	// the client, the user it logs in, and whether the flow created it.
	ResultHash      *string    `db:"result_hash"`
	ResultUserID    *uuid.UUID `db:"result_user_id"`
	ResultEvent     *string    `db:"result_event"`
	ResultExpiresAt *time.Time `db:"result_expires_at"`
	ResultUsedAt    *time.Time `db:"result_used_at"`
	CreatedAt       time.Time  `db:"created_at"`
}

func (f *Flow) normalize() {
	utc(&f.ExpiresAt)
	utc(&f.CreatedAt)
	utcPtr(&f.UsedAt)
	utcPtr(&f.ResultExpiresAt)
	utcPtr(&f.ResultUsedAt)
}

const flowColumns = `id, state_hash, provider, binding_hash, nonce_hash, verifier_ciphertext, verifier_nonce,
	redirect_to, client, code_challenge, link_user_id, link_session_id, expires_at, used_at,
	result_hash, result_user_id, result_event, result_expires_at, result_used_at, created_at`

// flowQueries is the query table of FlowStore. Using a flow's state and
// spending its result are conditional updates, so that of concurrent
// requests presenting one exactly one succeeds.
var flowQueries = struct{ insert, byState, use, setResult, byResult, spend, voidResults, purge string }{
	insert: `INSERT INTO oidc_flows (id, state_hash, provider, binding_hash, nonce_hash, verifier_ciphertext,
		verifier_nonce, redirect_to, client, code_challenge, link_user_id, link_session_id, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
	byState: `SELECT ` + flowColumns + ` FROM oidc_flows WHERE state_hash = $1`,
	use: `UPDATE oidc_flows SET used_at = $2
		WHERE id = $1 AND used_at IS NULL AND expires_at > $2`,
	setResult: `UPDATE oidc_flows SET result_hash = $2, result_user_id = $3, result_event = $4, result_expires_at = $5
		WHERE id = $1 AND result_hash IS NULL`,
	byResult: `SELECT ` + flowColumns + ` FROM oidc_flows WHERE result_hash = $1`,
	spend: `UPDATE oidc_flows SET result_used_at = $2
		WHERE id = $1 AND result_used_at IS NULL AND result_expires_at > $2`,
	voidResults: `UPDATE oidc_flows SET result_used_at = $2
		WHERE result_user_id = $1 AND result_used_at IS NULL`,
	purge: `DELETE FROM oidc_flows WHERE id IN (SELECT id FROM oidc_flows
		WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
}

// FlowStore reads and writes oidc_flows. Its zero value sends plain
// queries; it is safe for concurrent use.
type FlowStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s FlowStore) Prepared(pool *sqlx.DB) FlowStore {
	return FlowStore{q: preparedOn(pool, queriesOf(&flowQueries)...)}
}

// Insert stores a new flow f (its result and uses empty).
func (s FlowStore) Insert(ctx context.Context, db DB, f *Flow) error {
	_, err := s.q.exec(ctx, db, flowQueries.insert, f.ID, f.StateHash, f.Provider, f.BindingHash, f.NonceHash,
		f.VerifierCiphertext, f.VerifierNonce, f.RedirectTo, f.Client, f.CodeChallenge, f.LinkUserID, f.LinkSessionID,
		f.ExpiresAt, f.CreatedAt)
	return storeErr("insert oidc flow", err)
}

// ByState returns the flow whose state hashes to hash, used or not, or
// ErrNotFound.
func (s FlowStore) ByState(ctx context.Context, db DB, hash string) (*Flow, error) {
	return getRow[Flow](ctx, s.q, db, "oidc flow by state", flowQueries.byState, hash)
}

// ByResult returns the flow whose result code hashes to hash, spent or
// not, or ErrNotFound.
func (s FlowStore) ByResult(ctx context.Context, db DB, hash string) (*Flow, error) {
	return getRow[Flow](ctx, s.q, db, "oidc flow by result", flowQueries.byResult, hash)
}

// Use marks the flow id used at now if it is unused and unexpired, and
// reports whether it did: a state is good for one callback.
func (s FlowStore) Use(ctx context.Context, db DB, id uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "use oidc flow", flowQueries.use, id, now)
	return n > 0, err
}

// SetResult records the result of the flow id: the hash of its one-time
// code, the user it logs in, its event (FlowLogin or FlowRegister) and
// the code's expiry. A flow has at most one result (else ErrNotFound).
func (s FlowStore) SetResult(ctx context.Context, db DB, id uuid.UUID, hash string, user uuid.UUID, event string, expires time.Time) error {
	return execOne(ctx, s.q, db, "set oidc flow result", flowQueries.setResult, id, hash, user, event, expires)
}

// Spend marks the result of the flow id used at now if it is unspent and
// unexpired, and reports whether it did. Run it in the transaction of what
// the result authorises: a rollback makes it unspent again.
func (s FlowStore) Spend(ctx context.Context, db DB, id uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "spend oidc flow result", flowQueries.spend, id, now)
	return n > 0, err
}

// VoidResults spends at now every unspent result code that would log the
// user in, and returns how many.
func (s FlowStore) VoidResults(ctx context.Context, db DB, user uuid.UUID, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void oidc flow results", flowQueries.voidResults, user, now)
}

// Purge deletes the flows that expired before the cutoff, batch rows per
// statement, and returns how many.
func (s FlowStore) Purge(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge oidc flows", flowQueries.purge, before, batch)
}
