package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Webhook is a row of webhooks: where the security events of the types in
// Events are sent. Its secrets are sealed with the data-encryption key;
// the previous one still signs until PreviousExpiresAt (a rotation's
// grace).
type Webhook struct {
	ID                 uuid.UUID      `db:"id"`
	URL                string         `db:"url"`
	Events             pq.StringArray `db:"events"`
	Description        string         `db:"description"`
	Enabled            bool           `db:"enabled"`
	SecretCiphertext   []byte         `db:"secret_ciphertext"`
	SecretNonce        []byte         `db:"secret_nonce"`
	PreviousCiphertext []byte         `db:"previous_secret_ciphertext"`
	PreviousNonce      []byte         `db:"previous_secret_nonce"`
	PreviousExpiresAt  *time.Time     `db:"previous_secret_expires_at"`
	CreatedAt          time.Time      `db:"created_at"`
	UpdatedAt          time.Time      `db:"updated_at"`
}

func (w *Webhook) normalize() {
	utc(&w.CreatedAt)
	utc(&w.UpdatedAt)
	utcPtr(&w.PreviousExpiresAt)
	if w.Events == nil {
		w.Events = pq.StringArray{}
	}
}

// WebhookChange is an update of a webhook: nil fields stay as they are.
type WebhookChange struct {
	URL         *string
	Events      []string
	Description *string
	Enabled     *bool
}

const webhookColumns = `id, url, events, description, enabled, secret_ciphertext, secret_nonce,
	previous_secret_ciphertext, previous_secret_nonce, previous_secret_expires_at, created_at, updated_at`

// webhookQueries is the query table of WebhookStore.
var webhookQueries = struct{ insert, list, byID, update, rotate, remove string }{
	insert: `INSERT INTO webhooks (id, url, events, description, enabled, secret_ciphertext, secret_nonce, created_at, updated_at)
		VALUES ($1, $2, $3, $4, true, $5, $6, $7, $7) RETURNING ` + webhookColumns,
	list: `SELECT ` + webhookColumns + ` FROM webhooks ORDER BY created_at DESC, id DESC`,
	byID: `SELECT ` + webhookColumns + ` FROM webhooks WHERE id = $1`,
	update: `UPDATE webhooks SET url = COALESCE($2, url), events = COALESCE($3, events),
		description = COALESCE($4, description), enabled = COALESCE($5, enabled), updated_at = $6
		WHERE id = $1 RETURNING ` + webhookColumns,
	// The secret being replaced keeps signing until $5.
	rotate: `UPDATE webhooks SET previous_secret_ciphertext = secret_ciphertext,
		previous_secret_nonce = secret_nonce, previous_secret_expires_at = $5,
		secret_ciphertext = $2, secret_nonce = $3, updated_at = $4
		WHERE id = $1 RETURNING ` + webhookColumns,
	remove: `DELETE FROM webhooks WHERE id = $1`,
}

// WebhookStore reads and writes webhooks. Its zero value sends plain
// queries; it is safe for concurrent use.
type WebhookStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s WebhookStore) Prepared(pool *sqlx.DB) WebhookStore {
	return WebhookStore{q: preparedOn(pool, queriesOf(&webhookQueries)...)}
}

// Insert stores a new, enabled webhook whose sealed secret is ciphertext
// and nonce, created at now, and returns it.
func (s WebhookStore) Insert(ctx context.Context, db DB, w *Webhook, now time.Time) (*Webhook, error) {
	return getRow[Webhook](ctx, s.q, db, "insert webhook", webhookQueries.insert,
		w.ID, w.URL, pq.StringArray(w.Events), w.Description, w.SecretCiphertext, w.SecretNonce, now)
}

// List returns every webhook, newest first.
func (s WebhookStore) List(ctx context.Context, db DB) ([]Webhook, error) {
	return selectRows[Webhook](ctx, s.q, db, "list webhooks", webhookQueries.list)
}

// ByID returns the webhook id, or ErrNotFound.
func (s WebhookStore) ByID(ctx context.Context, db DB, id uuid.UUID) (*Webhook, error) {
	return getRow[Webhook](ctx, s.q, db, "read webhook", webhookQueries.byID, id)
}

// Update applies c to the webhook id at now and returns it, or ErrNotFound.
func (s WebhookStore) Update(ctx context.Context, db DB, id uuid.UUID, c WebhookChange, now time.Time) (*Webhook, error) {
	var events any
	if c.Events != nil {
		events = pq.StringArray(c.Events)
	}
	return getRow[Webhook](ctx, s.q, db, "update webhook", webhookQueries.update,
		id, c.URL, events, c.Description, c.Enabled, now)
}

// Rotate replaces the webhook's secret with the sealed ciphertext and
// nonce at now; the old one keeps signing until graceUntil. ErrNotFound
// when there is no such webhook.
func (s WebhookStore) Rotate(ctx context.Context, db DB, id uuid.UUID, ciphertext, nonce []byte, now, graceUntil time.Time) (*Webhook, error) {
	return getRow[Webhook](ctx, s.q, db, "rotate webhook secret", webhookQueries.rotate,
		id, ciphertext, nonce, now, graceUntil)
}

// Delete removes the webhook id and its deliveries, or answers ErrNotFound.
func (s WebhookStore) Delete(ctx context.Context, db DB, id uuid.UUID) error {
	return execOne(ctx, s.q, db, "delete webhook", webhookQueries.remove, id)
}
