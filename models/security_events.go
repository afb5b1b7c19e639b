package models

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// The types of security events (docs/security.md, Security log).
const (
	EventRegister               = "register"
	EventLogin                  = "login"
	EventLoginFailed            = "login_failed"
	EventLogout                 = "logout"
	EventLogoutAll              = "logoutall"
	EventRefreshTheft           = "refresh_theft"
	EventPasswordChanged        = "password_changed"
	EventPasswordResetRequested = "password_reset_requested"
	EventPasswordReset          = "password_reset"
	EventEmailVerified          = "email_verified"
	EventSessionRevoked         = "session_revoked"
	EventAccountDeactivated     = "account_deactivated"
	EventAccountActivated       = "account_activated"
	EventAccountDeleted         = "account_deleted"
	EventAccountRestored        = "account_restored"

	// The second factor and re-authentication.
	EventMFAEnabled               = "mfa_enabled"
	EventMFADisabled              = "mfa_disabled"
	EventMFAChallengeFailed       = "mfa_challenge_failed"
	EventRecoveryCodeUsed         = "recovery_code_used"
	EventRecoveryCodesRegenerated = "recovery_codes_regenerated"
	EventMFAReset                 = "mfa_reset"
	EventReauthenticated          = "reauthenticated"

	// Identity providers.
	EventIdentityLinked      = "identity_linked"
	EventIdentityUnlinked    = "identity_unlinked"
	EventIdentityLoginFailed = "identity_login_failed"
	// Passkeys.
	EventPasskeyAdded   = "passkey_added"
	EventPasskeyRemoved = "passkey_removed"
	// EventPasskeyWarning records a use whose signature counter did not
	// advance (a synced passkey, or a cloned authenticator).
	EventPasskeyWarning = "passkey_warning"

	// Applications signed in through actionkit as an OAuth provider.
	EventOAuthAppConnected = "oauth_app_connected"
	EventOAuthAppRevoked   = "oauth_app_revoked"
	// The account's own changes (CONTRACT §23).
	EventEmailChanged        = "email_changed"
	EventEmailChangeReverted = "email_change_reverted"
	EventUserUpdated         = "user_updated"
)

// SecurityEvent is a row of security_events: one change to an owner's
// credentials or sessions, written in the transaction of the change.
type SecurityEvent struct {
	ID        uuid.UUID  `db:"id"`
	OwnerType string     `db:"owner_type"`
	OwnerID   uuid.UUID  `db:"owner_id"`
	Type      string     `db:"type"`
	SessionID *uuid.UUID `db:"session_id"`
	IPAddress *string    `db:"ip_address"`
	UserAgent *string    `db:"user_agent"`
	// Data is a JSON object (jsonb): details of the event, such as the
	// acting admin's id ("adminId"). Nil is stored as {}.
	Data      json.RawMessage `db:"data"`
	CreatedAt time.Time       `db:"created_at"`
}

const securityEventColumns = `id, owner_type, owner_id, type, session_id, ip_address, user_agent, data, created_at`

// eventQueries is the query table of EventStore.
var eventQueries = struct{ insert, list, purge string }{
	// The insert also queues, in the same statement, one webhook delivery
	// per enabled webhook subscribed to the type (see migration 0014):
	// the event and its deliveries commit or roll back together, and with
	// no webhook it costs a scan of an empty table.
	insert: `WITH ev AS (INSERT INTO security_events (` + securityEventColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8::jsonb, '{}'), COALESCE($9, now()))
		RETURNING id, type, created_at),
	fanout AS (INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, next_attempt_at, created_at)
		SELECT webhook_uuid_v7(ev.created_at), w.id, ev.id, ev.type, ev.created_at, ev.created_at
		FROM ev JOIN webhooks w ON w.enabled AND (ev.type = ANY (w.events) OR '*' = ANY (w.events)))
	SELECT created_at FROM ev`,
	// The index on (owner_type, owner_id, created_at DESC, id DESC) serves
	// every page in key order.
	list: `SELECT ` + securityEventColumns + ` FROM security_events
		WHERE owner_type = $1 AND owner_id = $2
		AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
		ORDER BY created_at DESC, id DESC LIMIT $5`,
	// An event whose webhook delivery is still pending is kept past the
	// retention until the delivery ends: purging it would delete the
	// delivery (ON DELETE CASCADE) before its retries ran out.
	purge: `DELETE FROM security_events WHERE id IN (SELECT id FROM security_events e
		WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
			WHERE d.event_id = e.id AND d.status = 'pending')
		LIMIT $2 FOR UPDATE SKIP LOCKED)`,
}

// EventStore reads and writes security_events. Its zero value sends plain
// queries; it is safe for concurrent use.
type EventStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s EventStore) Prepared(pool *sqlx.DB) EventStore {
	return EventStore{q: preparedOn(pool, queriesOf(&eventQueries)...)}
}

// Insert stores ev. A nil ID gets a new UUID v7 and a zero CreatedAt the
// database's now(); both are set on ev.
func (s EventStore) Insert(ctx context.Context, db DB, ev *SecurityEvent) error {
	if ev.ID == uuid.Nil {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		ev.ID = id
	}
	err := s.q.rowx(ctx, db, eventQueries.insert, ev.ID, ev.OwnerType, ev.OwnerID, ev.Type, ev.SessionID,
		ev.IPAddress, ev.UserAgent, jsonText(ev.Data), nullIfZero(ev.CreatedAt)).Scan(&ev.CreatedAt)
	if err != nil {
		return storeErr("insert security event", err)
	}
	utc(&ev.CreatedAt)
	return nil
}

// List returns at most limit events of the owner, newest first, after the
// position after (nil: from the newest).
func (s EventStore) List(ctx context.Context, db DB, ownerType string, owner uuid.UUID, after *Keyset, limit int) ([]SecurityEvent, error) {
	var ts, id any
	if after != nil {
		ts, id = after.CreatedAt, after.ID
	}
	var list []SecurityEvent
	if err := s.q.sel(ctx, db, &list, eventQueries.list, ownerType, owner, ts, id, limit); err != nil {
		return nil, storeErr("list security events", err)
	}
	for i := range list {
		utc(&list[i].CreatedAt)
	}
	return list, nil
}

// Purge deletes the events created before the cutoff, batch rows per
// statement, until a statement deletes fewer, and returns how many.
func (s EventStore) Purge(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge security events", eventQueries.purge, before, batch)
}
