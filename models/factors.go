package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// TOTP is a row of mfa_totp: an owner's TOTP secret, stored only
// encrypted, pending until ConfirmedAt is set.
type TOTP struct {
	ID               uuid.UUID  `db:"id"`
	OwnerType        string     `db:"owner_type"`
	OwnerID          uuid.UUID  `db:"owner_id"`
	SecretCiphertext []byte     `db:"secret_ciphertext"`
	SecretNonce      []byte     `db:"secret_nonce"`
	ConfirmedAt      *time.Time `db:"confirmed_at"`
	// LastUsedStep is the latest 30-second step a code was accepted for.
	LastUsedStep *int64    `db:"last_used_step"`
	CreatedAt    time.Time `db:"created_at"`
	UpdatedAt    time.Time `db:"updated_at"`
}

func (t *TOTP) normalize() {
	utc(&t.CreatedAt)
	utc(&t.UpdatedAt)
	utcPtr(&t.ConfirmedAt)
}

// RecoveryCode is a row of mfa_recovery_codes: CodeHash is the keyed hash
// of a code, never the code.
type RecoveryCode struct {
	ID       uuid.UUID `db:"id"`
	CodeHash string    `db:"code_hash"`
}

// Factors is what an owner has of a second factor.
type Factors struct {
	// TOTPConfirmedAt is when its TOTP secret was confirmed, nil when it
	// has none or a pending one only.
	TOTPConfirmedAt *time.Time `db:"totp_confirmed_at"`
	// RecoveryCodesRemaining counts its unused recovery codes.
	RecoveryCodesRemaining int `db:"recovery_codes_remaining"`
	// Passkeys counts its passkeys.
	Passkeys int `db:"passkeys"`
}

const totpColumns = `id, owner_type, owner_id, secret_ciphertext, secret_nonce, confirmed_at, last_used_step, created_at, updated_at`

// factorQueries is the query table of FactorStore. Every statement names
// the owner by (owner_type, owner_id), so users and admins share the
// tables.
var factorQueries = struct {
	factors, totp, anyTOTP, putPending, confirm, useStep, deleteTOTP string
	deleteCodes, insertCodes, unusedCodes, useCode                   string
}{
	factors: `SELECT
		(SELECT confirmed_at FROM mfa_totp WHERE owner_type = $1 AND owner_id = $2) AS totp_confirmed_at,
		(SELECT count(*) FROM mfa_recovery_codes WHERE owner_type = $1 AND owner_id = $2 AND used_at IS NULL)
			AS recovery_codes_remaining,
		(SELECT count(*) FROM webauthn_credentials WHERE owner_type = $1 AND owner_id = $2) AS passkeys`,
	totp:    `SELECT ` + totpColumns + ` FROM mfa_totp WHERE owner_type = $1 AND owner_id = $2`,
	anyTOTP: `SELECT ` + totpColumns + ` FROM mfa_totp ORDER BY id LIMIT $1`,
	// A pending secret replaces an earlier pending one; a confirmed one is
	// left alone (no row returned).
	putPending: `INSERT INTO mfa_totp (` + totpColumns + `)
		VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $6)
		ON CONFLICT (owner_type, owner_id) DO UPDATE SET secret_ciphertext = EXCLUDED.secret_ciphertext,
			secret_nonce = EXCLUDED.secret_nonce, last_used_step = NULL,
			created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
		WHERE mfa_totp.confirmed_at IS NULL
		RETURNING ` + totpColumns,
	confirm: `UPDATE mfa_totp SET confirmed_at = $3, last_used_step = $4, updated_at = $3
		WHERE id = $1 AND secret_nonce = $2 AND confirmed_at IS NULL
			AND (last_used_step IS NULL OR last_used_step < $4)`,
	useStep: `UPDATE mfa_totp SET last_used_step = $2, updated_at = $3
		WHERE id = $1 AND confirmed_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < $2)`,
	deleteTOTP:  `DELETE FROM mfa_totp WHERE owner_type = $1 AND owner_id = $2`,
	deleteCodes: `DELETE FROM mfa_recovery_codes WHERE owner_type = $1 AND owner_id = $2`,
	insertCodes: `INSERT INTO mfa_recovery_codes (id, owner_type, owner_id, code_hash, created_at)
		SELECT id, $1, $2, code_hash, $5 FROM unnest($3::uuid[], $4::text[]) AS c (id, code_hash)`,
	unusedCodes: `SELECT id, code_hash FROM mfa_recovery_codes
		WHERE owner_type = $1 AND owner_id = $2 AND used_at IS NULL ORDER BY id`,
	useCode: `UPDATE mfa_recovery_codes SET used_at = $2 WHERE id = $1 AND used_at IS NULL`,
}

// FactorStore reads and writes the second factors (mfa_totp and
// mfa_recovery_codes). Its zero value is ready; it is safe for concurrent
// use.
type FactorStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s FactorStore) Prepared(pool *sqlx.DB) FactorStore {
	return FactorStore{q: preparedOn(pool, queriesOf(&factorQueries)...)}
}

// Factors returns what the owner has of a second factor.
func (s FactorStore) Factors(ctx context.Context, db DB, ownerType string, owner uuid.UUID) (Factors, error) {
	var f Factors
	if err := s.q.get(ctx, db, &f, factorQueries.factors, ownerType, owner); err != nil {
		return Factors{}, storeErr("second factors", err)
	}
	utcPtr(&f.TOTPConfirmedAt)
	return f, nil
}

// TOTP returns the owner's TOTP row, pending or confirmed, or ErrNotFound.
func (s FactorStore) TOTP(ctx context.Context, db DB, ownerType string, owner uuid.UUID) (*TOTP, error) {
	return getRow[TOTP](ctx, s.q, db, "totp", factorQueries.totp, ownerType, owner)
}

// SomeTOTP returns at most n TOTP rows of any owner (none when there is
// none): the start-up check that the data key opens the stored secrets.
func (s FactorStore) SomeTOTP(ctx context.Context, db DB, n int) ([]TOTP, error) {
	return selectRows[TOTP](ctx, s.q, db, "some totp", factorQueries.anyTOTP, n)
}

// PutPendingTOTP stores t (ID, owner, secret and CreatedAt set by the
// caller) as the owner's pending secret, replacing an earlier pending
// one, and returns the stored row (whose ID is the earlier row's when it
// replaced one). ErrConflict means the owner has a confirmed secret.
func (s FactorStore) PutPendingTOTP(ctx context.Context, db DB, t *TOTP) (*TOTP, error) {
	row, err := getRow[TOTP](ctx, s.q, db, "put pending totp", factorQueries.putPending,
		t.ID, t.OwnerType, t.OwnerID, t.SecretCiphertext, t.SecretNonce, t.CreatedAt)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrConflict
	}
	return row, err
}

// ConfirmTOTP confirms the pending row id whose secret is the one sealed
// with nonce, consuming step (so that the code that confirmed it cannot be
// used again), and reports whether it did: false means the row is gone,
// confirmed, or holds another secret by now.
func (s FactorStore) ConfirmTOTP(ctx context.Context, db DB, id uuid.UUID, nonce []byte, step int64, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "confirm totp", factorQueries.confirm, id, nonce, now, step)
	return n > 0, err
}

// UseTOTPStep records that a code of step was accepted for the confirmed
// row id, in one conditional statement: it reports false, changing
// nothing, when a code of that step or a later one was accepted before
// (a replay), so that of concurrent requests with one code exactly one
// gets true.
func (s FactorStore) UseTOTPStep(ctx context.Context, db DB, id uuid.UUID, step int64, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "use totp step", factorQueries.useStep, id, step, now)
	return n > 0, err
}

// DeleteTOTP removes the owner's TOTP secret and reports whether there
// was one.
func (s FactorStore) DeleteTOTP(ctx context.Context, db DB, ownerType string, owner uuid.UUID) (bool, error) {
	n, err := execCount(ctx, s.q, db, "delete totp", factorQueries.deleteTOTP, ownerType, owner)
	return n > 0, err
}

// ReplaceRecoveryCodes voids the owner's recovery codes and stores a new
// set, given as ids and keyed hashes of the same length.
func (s FactorStore) ReplaceRecoveryCodes(ctx context.Context, db DB, ownerType string, owner uuid.UUID, ids []uuid.UUID, hashes []string, now time.Time) error {
	if err := s.DeleteRecoveryCodes(ctx, db, ownerType, owner); err != nil {
		return err
	}
	idText := make([]string, len(ids))
	for i, id := range ids {
		idText[i] = id.String()
	}
	_, err := s.q.exec(ctx, db, factorQueries.insertCodes, ownerType, owner, pq.StringArray(idText), pq.StringArray(hashes), now)
	return storeErr("insert recovery codes", err)
}

// DeleteRecoveryCodes removes every recovery code of the owner.
func (s FactorStore) DeleteRecoveryCodes(ctx context.Context, db DB, ownerType string, owner uuid.UUID) error {
	_, err := execCount(ctx, s.q, db, "delete recovery codes", factorQueries.deleteCodes, ownerType, owner)
	return err
}

// UnusedRecoveryCodes returns the owner's unused recovery codes (their
// hashes).
func (s FactorStore) UnusedRecoveryCodes(ctx context.Context, db DB, ownerType string, owner uuid.UUID) ([]RecoveryCode, error) {
	var list []RecoveryCode
	if err := s.q.sel(ctx, db, &list, factorQueries.unusedCodes, ownerType, owner); err != nil {
		return nil, storeErr("unused recovery codes", err)
	}
	return list, nil
}

// UseRecoveryCode marks the recovery code id used at now if it is unused,
// in one conditional statement, and reports whether it did.
func (s FactorStore) UseRecoveryCode(ctx context.Context, db DB, id uuid.UUID, now time.Time) (bool, error) {
	n, err := execCount(ctx, s.q, db, "use recovery code", factorQueries.useCode, id, now)
	return n > 0, err
}
