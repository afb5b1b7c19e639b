package models

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// The statuses of a webhook delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is a row of webhook_deliveries: one security event on its way
// to one webhook. Its id is the webhook-id header of every attempt.
type Delivery struct {
	ID             uuid.UUID  `db:"id"`
	WebhookID      uuid.UUID  `db:"webhook_id"`
	EventID        uuid.UUID  `db:"event_id"`
	Type           string     `db:"type"`
	Status         string     `db:"status"`
	Attempts       int        `db:"attempts"`
	LastStatusCode *int       `db:"last_status_code"`
	LastError      *string    `db:"last_error"`
	NextAttemptAt  *time.Time `db:"next_attempt_at"`
	CreatedAt      time.Time  `db:"created_at"`
	DeliveredAt    *time.Time `db:"delivered_at"`
}

func (d *Delivery) normalize() {
	utc(&d.CreatedAt)
	utcPtr(&d.NextAttemptAt)
	utcPtr(&d.DeliveredAt)
}

// DueDelivery is a delivery claimed for an attempt, with what the attempt
// needs: the webhook's address and sealed secrets, and the event.
type DueDelivery struct {
	Delivery
	URL                string          `db:"url"`
	SecretCiphertext   []byte          `db:"secret_ciphertext"`
	SecretNonce        []byte          `db:"secret_nonce"`
	PreviousCiphertext []byte          `db:"previous_secret_ciphertext"`
	PreviousNonce      []byte          `db:"previous_secret_nonce"`
	PreviousExpiresAt  *time.Time      `db:"previous_secret_expires_at"`
	OwnerType          string          `db:"owner_type"`
	OwnerID            uuid.UUID       `db:"owner_id"`
	SessionID          *uuid.UUID      `db:"session_id"`
	IPAddress          *string         `db:"ip_address"`
	UserAgent          *string         `db:"user_agent"`
	Data               json.RawMessage `db:"data"`
	EventCreatedAt     time.Time       `db:"event_created_at"`
}

func (d *DueDelivery) normalize() {
	d.Delivery.normalize()
	utcPtr(&d.PreviousExpiresAt)
	utc(&d.EventCreatedAt)
}

// DeliveryOutcome is the result of one attempt: Status pending with
// NextAttemptAt for a retry, delivered, or failed for good.
type DeliveryOutcome struct {
	Status        string
	StatusCode    *int
	Error         *string
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
}

const deliveryColumns = `id, webhook_id, event_id, type, status, attempts, last_status_code, last_error,
	next_attempt_at, created_at, delivered_at`

// deliveryQueries is the query table of DeliveryStore.
var deliveryQueries = struct{ claim, record, list, redeliver, byID string }{
	// claim takes the due deliveries of enabled webhooks and moves them
	// $2 forward (a lease): another worker skips them, and a worker that
	// dies during the attempt leaves them due again once the lease ends.
	claim: `WITH claimed AS (UPDATE webhook_deliveries d SET next_attempt_at = $2
		WHERE d.id IN (SELECT x.id FROM webhook_deliveries x JOIN webhooks w ON w.id = x.webhook_id AND w.enabled
			WHERE x.status = 'pending' AND x.next_attempt_at <= $1
			ORDER BY x.next_attempt_at LIMIT $3 FOR UPDATE OF x SKIP LOCKED)
		RETURNING d.*)
	SELECT c.id, c.webhook_id, c.event_id, c.type, c.status, c.attempts, c.last_status_code, c.last_error,
		c.next_attempt_at, c.created_at, c.delivered_at, w.url, w.secret_ciphertext, w.secret_nonce,
		w.previous_secret_ciphertext, w.previous_secret_nonce, w.previous_secret_expires_at,
		e.owner_type, e.owner_id, e.session_id, e.ip_address, e.user_agent, e.data, e.created_at AS event_created_at
	FROM claimed c JOIN webhooks w ON w.id = c.webhook_id JOIN security_events e ON e.id = c.event_id`,
	record: `UPDATE webhook_deliveries SET attempts = attempts + 1, status = $2, last_status_code = $3,
		last_error = $4, next_attempt_at = $5, delivered_at = $6 WHERE id = $1 AND status = 'pending'`,
	list: `SELECT ` + deliveryColumns + ` FROM webhook_deliveries
		WHERE webhook_id = $1 AND ($2 = 'all' OR status = $2)
		AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
		ORDER BY created_at DESC, id DESC LIMIT $5`,
	redeliver: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2,
		delivered_at = NULL WHERE id = $1 RETURNING ` + deliveryColumns,
	byID: `SELECT ` + deliveryColumns + ` FROM webhook_deliveries WHERE id = $1`,
}

// DeliveryStore reads and writes webhook_deliveries (the rows themselves
// are written with their security event, by EventStore.Insert). Its zero
// value sends plain queries; it is safe for concurrent use.
type DeliveryStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s DeliveryStore) Prepared(pool *sqlx.DB) DeliveryStore {
	return DeliveryStore{q: preparedOn(pool, queriesOf(&deliveryQueries)...)}
}

// Claim takes at most limit deliveries due at now and leases them until
// leaseUntil.
func (s DeliveryStore) Claim(ctx context.Context, db DB, now, leaseUntil time.Time, limit int) ([]DueDelivery, error) {
	return selectRows[DueDelivery](ctx, s.q, db, "claim webhook deliveries", deliveryQueries.claim, now, leaseUntil, limit)
}

// Record stores the outcome of an attempt of the pending delivery id.
func (s DeliveryStore) Record(ctx context.Context, db DB, id uuid.UUID, o DeliveryOutcome) error {
	_, err := execCount(ctx, s.q, db, "record webhook delivery", deliveryQueries.record,
		id, o.Status, o.StatusCode, o.Error, o.NextAttemptAt, o.DeliveredAt)
	return err
}

// List returns at most limit deliveries of the webhook with status (or
// "all"), newest first, after the position after (nil: from the newest).
func (s DeliveryStore) List(ctx context.Context, db DB, webhook uuid.UUID, status string, after *Keyset, limit int) ([]Delivery, error) {
	var ts, id any
	if after != nil {
		ts, id = after.CreatedAt, after.ID
	}
	return selectRows[Delivery](ctx, s.q, db, "list webhook deliveries", deliveryQueries.list, webhook, status, ts, id, limit)
}

// Redeliver makes the delivery id pending and due at now, its retries
// starting over, and returns it; ErrNotFound when there is none.
func (s DeliveryStore) Redeliver(ctx context.Context, db DB, id uuid.UUID, now time.Time) (*Delivery, error) {
	return getRow[Delivery](ctx, s.q, db, "redeliver webhook delivery", deliveryQueries.redeliver, id, now)
}

// ByID returns the delivery id, or ErrNotFound.
func (s DeliveryStore) ByID(ctx context.Context, db DB, id uuid.UUID) (*Delivery, error) {
	return getRow[Delivery](ctx, s.q, db, "read webhook delivery", deliveryQueries.byID, id)
}
