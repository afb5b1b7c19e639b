package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Passkey is a row of webauthn_credentials: one WebAuthn credential of an
// owner. ID is the passkey id clients name; CredentialID the
// authenticator's.
type Passkey struct {
	ID           uuid.UUID `db:"id"`
	OwnerType    string    `db:"owner_type"`
	OwnerID      uuid.UUID `db:"owner_id"`
	CredentialID []byte    `db:"credential_id"`
	// PublicKey is the credential's public key, COSE-encoded.
	PublicKey []byte `db:"public_key"`
	// SignCount is the authenticator's signature counter (32 bits).
	SignCount int64     `db:"sign_count"`
	AAGUID    uuid.UUID `db:"aaguid"`
	// Transports are how the client may reach the authenticator (usb,
	// nfc, ble, smart-card, hybrid, internal).
	Transports     pq.StringArray `db:"transports"`
	UserVerified   bool           `db:"user_verified"`
	BackupEligible bool           `db:"backup_eligible"`
	BackupState    bool           `db:"backup_state"`
	Name           string         `db:"name"`
	CreatedAt      time.Time      `db:"created_at"`
	UpdatedAt      time.Time      `db:"updated_at"`
	LastUsedAt     *time.Time     `db:"last_used_at"`
}

func (p *Passkey) normalize() {
	utc(&p.CreatedAt)
	utc(&p.UpdatedAt)
	utcPtr(&p.LastUsedAt)
	if p.Transports == nil {
		p.Transports = pq.StringArray{}
	}
}

// PasskeyUse is what a verified use of a passkey changes: its counter
// (never lowered by the caller), its backup state and whether the owner
// was verified, at a time.
type PasskeyUse struct {
	SignCount    int64
	BackupState  bool
	UserVerified bool
	At           time.Time
}

const passkeyColumns = `id, owner_type, owner_id, credential_id, public_key, sign_count, aaguid, transports,
	user_verified, backup_eligible, backup_state, name, created_at, updated_at, last_used_at`

// passkeyQueries is the query table of PasskeyStore. Every statement that
// names a passkey by its id also names its owner, so that one owner can
// never read or change another's.
var passkeyQueries = struct {
	insert, list, byCredential, lock, use, rename, remove, removeAll, putHandle, handle string
}{
	insert: `INSERT INTO webauthn_credentials (` + passkeyColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, NULL)`,
	list: `SELECT ` + passkeyColumns + ` FROM webauthn_credentials
		WHERE owner_type = $1 AND owner_id = $2 ORDER BY created_at DESC, id DESC`,
	byCredential: `SELECT ` + passkeyColumns + ` FROM webauthn_credentials WHERE credential_id = $1 AND owner_type = $2`,
	lock: `SELECT ` + passkeyColumns + ` FROM webauthn_credentials
		WHERE id = $1 AND owner_type = $2 AND owner_id = $3 FOR UPDATE`,
	use: `UPDATE webauthn_credentials SET sign_count = $2, backup_state = $3, user_verified = user_verified OR $4,
		last_used_at = $5, updated_at = $5 WHERE id = $1`,
	rename: `UPDATE webauthn_credentials SET name = $4, updated_at = $5
		WHERE id = $1 AND owner_type = $2 AND owner_id = $3 RETURNING ` + passkeyColumns,
	remove: `DELETE FROM webauthn_credentials WHERE id = $1 AND owner_type = $2 AND owner_id = $3
		RETURNING ` + passkeyColumns,
	removeAll: `DELETE FROM webauthn_credentials WHERE owner_type = $1 AND owner_id = $2`,
	putHandle: `INSERT INTO webauthn_user_handles (owner_type, owner_id, handle, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4) ON CONFLICT (owner_type, owner_id) DO NOTHING`,
	handle: `SELECT handle FROM webauthn_user_handles WHERE owner_type = $1 AND owner_id = $2`,
}

// PasskeyStore reads and writes passkeys (webauthn_credentials) and the
// owners' WebAuthn user handles. Its zero value is ready; it is safe for
// concurrent use.
type PasskeyStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s PasskeyStore) Prepared(pool *sqlx.DB) PasskeyStore {
	return PasskeyStore{q: preparedOn(pool, queriesOf(&passkeyQueries)...)}
}

// Insert stores p (every column but updated_at and last_used_at set by the
// caller). ErrDuplicate means its credential id is registered already.
func (s PasskeyStore) Insert(ctx context.Context, db DB, p *Passkey) error {
	_, err := s.q.exec(ctx, db, passkeyQueries.insert, p.ID, p.OwnerType, p.OwnerID, p.CredentialID, p.PublicKey,
		p.SignCount, p.AAGUID, p.Transports, p.UserVerified, p.BackupEligible, p.BackupState, p.Name, p.CreatedAt)
	return storeErr("insert passkey", err)
}

// List returns the owner's passkeys, newest first.
func (s PasskeyStore) List(ctx context.Context, db DB, ownerType string, owner uuid.UUID) ([]Passkey, error) {
	return selectRows[Passkey](ctx, s.q, db, "list passkeys", passkeyQueries.list, ownerType, owner)
}

// ByCredentialID returns the passkey of owner type ownerType whose
// credential id is id, or ErrNotFound.
func (s PasskeyStore) ByCredentialID(ctx context.Context, db DB, ownerType string, id []byte) (*Passkey, error) {
	return getRow[Passkey](ctx, s.q, db, "passkey by credential id", passkeyQueries.byCredential, id, ownerType)
}

// Lock returns the owner's passkey id locked for the rest of the
// transaction db, or ErrNotFound.
func (s PasskeyStore) Lock(ctx context.Context, db DB, ownerType string, owner, id uuid.UUID) (*Passkey, error) {
	return getRow[Passkey](ctx, s.q, db, "lock passkey", passkeyQueries.lock, id, ownerType, owner)
}

// RecordUse writes a verified use u of the passkey id.
func (s PasskeyStore) RecordUse(ctx context.Context, db DB, id uuid.UUID, u PasskeyUse) error {
	return execOne(ctx, s.q, db, "record passkey use", passkeyQueries.use, id, u.SignCount, u.BackupState, u.UserVerified, u.At)
}

// Rename names the owner's passkey id and returns it, or ErrNotFound.
func (s PasskeyStore) Rename(ctx context.Context, db DB, ownerType string, owner, id uuid.UUID, name string, now time.Time) (*Passkey, error) {
	return getRow[Passkey](ctx, s.q, db, "rename passkey", passkeyQueries.rename, id, ownerType, owner, name, now)
}

// Remove deletes the owner's passkey id and returns it, or ErrNotFound.
func (s PasskeyStore) Remove(ctx context.Context, db DB, ownerType string, owner, id uuid.UUID) (*Passkey, error) {
	return getRow[Passkey](ctx, s.q, db, "remove passkey", passkeyQueries.remove, id, ownerType, owner)
}

// RemoveAll deletes every passkey of the owner and returns how many.
func (s PasskeyStore) RemoveAll(ctx context.Context, db DB, ownerType string, owner uuid.UUID) (int64, error) {
	return execCount(ctx, s.q, db, "remove passkeys", passkeyQueries.removeAll, ownerType, owner)
}

// UserHandle returns the owner's WebAuthn user handle, storing fresh
// (the caller's 32 random bytes) first when the owner has none: of
// concurrent callers, the first one's is kept and every one returns it.
func (s PasskeyStore) UserHandle(ctx context.Context, db DB, ownerType string, owner uuid.UUID, fresh []byte, now time.Time) ([]byte, error) {
	if _, err := s.q.exec(ctx, db, passkeyQueries.putHandle, ownerType, owner, fresh, now); err != nil {
		return nil, storeErr("put user handle", err)
	}
	return s.Handle(ctx, db, ownerType, owner)
}

// Handle returns the owner's WebAuthn user handle, or ErrNotFound.
func (s PasskeyStore) Handle(ctx context.Context, db DB, ownerType string, owner uuid.UUID) ([]byte, error) {
	var h []byte
	if err := s.q.get(ctx, db, &h, passkeyQueries.handle, ownerType, owner); err != nil {
		return nil, storeErr("user handle", err)
	}
	return h, nil
}
