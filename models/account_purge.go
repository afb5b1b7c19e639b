package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// keptEventData are the members of a security event's data a purge of its
// owner keeps: who acted (an admin, an OAuth client) and which fields
// changed, nothing that names or locates the person.
var keptEventData = []string{"adminId", "clientId", "fields"}

// purgeUserQueries is the query table of PurgeDeletedUsers; $1 is the
// array of user ids, except in pick.
var purgeUserQueries = struct {
	pick, deliveries, events, owned string
	users                           string
}{
	pick: `SELECT id FROM users WHERE deleted_at IS NOT NULL AND deleted_at < $1
		ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
	deliveries: `DELETE FROM webhook_deliveries WHERE event_id IN (
		SELECT id FROM security_events WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[]))`,
	events: `UPDATE security_events SET ip_address = NULL, user_agent = NULL,
		data = COALESCE((SELECT jsonb_object_agg(key, value) FROM jsonb_each(data) WHERE key = ANY ($2)), '{}'::jsonb)
		WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])`,
	// The rows keyed by (owner_type, owner_id), which no foreign key
	// removes; the rest (sessions, posts, identities, identity-provider
	// flows, OAuth codes, consents and grants) go with the user row.
	owned: `WITH
		t AS (DELETE FROM account_tokens WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])),
		c AS (DELETE FROM login_challenges WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])),
		w AS (DELETE FROM webauthn_challenges WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])),
		k AS (DELETE FROM webauthn_credentials WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])),
		h AS (DELETE FROM webauthn_user_handles WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])),
		r AS (DELETE FROM mfa_recovery_codes WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[]))
		DELETE FROM mfa_totp WHERE owner_type = 'user' AND owner_id = ANY ($1::uuid[])`,
	users: `DELETE FROM users WHERE id = ANY ($1::uuid[])`,
}

// PurgeDeletedUsers deletes for good at most limit users soft-deleted
// before before, with every row that refers to them (sessions, posts,
// identities, passkeys, second factors, one-time tokens, challenges,
// OAuth codes, consents and grants, and the webhook deliveries of their
// events), in one transaction, and returns their ids. Their security
// events are kept, without IP address, user agent and any data but
// adminId, clientId and fields: the log of what was done stays, the person
// goes. Their e-mail addresses are then free to register again.
func PurgeDeletedUsers(ctx context.Context, db *sqlx.DB, before time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := Transact(ctx, db, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &ids, purgeUserQueries.pick, before, limit); err != nil {
			return storeErr("pick deleted users", err)
		}
		if len(ids) == 0 {
			return nil
		}
		arr := make(pq.StringArray, len(ids))
		for i, id := range ids {
			arr[i] = id.String()
		}
		steps := []struct {
			op, query string
			args      []any
		}{
			{"purge webhook deliveries", purgeUserQueries.deliveries, []any{arr}},
			{"anonymise security events", purgeUserQueries.events, []any{arr, pq.StringArray(keptEventData)}},
			{"purge owned rows", purgeUserQueries.owned, []any{arr}},
			{"purge users", purgeUserQueries.users, []any{arr}},
		}
		for _, st := range steps {
			if _, err := tx.ExecContext(ctx, st.query, st.args...); err != nil {
				return storeErr(st.op, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}
