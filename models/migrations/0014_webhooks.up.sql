-- 0014: webhooks and their deliveries (docs/webhooks.md).
--
-- A delivery row is written by the statement that writes the security
-- event it carries (see EventStore.Insert), so a change that rolls back
-- sends nothing and a crash loses nothing: the table, not a job queue, is
-- the source of truth, and the worker sends the rows that are due.

-- webhook_uuid_v7 returns a UUID v7 for the millisecond of at: the ids of
-- the deliveries made in SQL sort by time like every id the service makes.
CREATE FUNCTION webhook_uuid_v7(at timestamptz) RETURNS uuid
LANGUAGE sql VOLATILE AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

-- The secrets are sealed with DATA_ENCRYPTION_KEY (they must be read back
-- to sign). After a rotation the previous secret signs too, until
-- previous_secret_expires_at.
CREATE TABLE webhooks (
    id uuid PRIMARY KEY,
    url text NOT NULL,
    events text[] NOT NULL,
    description text NOT NULL DEFAULT '',
    enabled boolean NOT NULL DEFAULT true,
    secret_ciphertext bytea NOT NULL,
    secret_nonce bytea NOT NULL,
    previous_secret_ciphertext bytea,
    previous_secret_nonce bytea,
    previous_secret_expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_created_idx ON webhooks (created_at DESC, id DESC);

-- A delivery carries its security event (read at each attempt, so the
-- body holds what the event holds); purging an event or deleting a webhook
-- removes its deliveries.
CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id uuid NOT NULL REFERENCES security_events (id) ON DELETE CASCADE,
    type text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    last_status_code integer,
    last_error text,
    next_attempt_at timestamptz,
    created_at timestamptz NOT NULL,
    delivered_at timestamptz
);
-- The worker's scan: the pending deliveries by when they are due.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- The console's listing of one webhook's deliveries, newest first.
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
