-- 0005: a session is a login, and every change to one is recorded.
--
-- A row of user_sessions is one refresh token; a refresh replaces it by a
-- new row. The rows of one chain of rotations, from the register or login
-- that opened it, are one session of the API: chain_id is the id of the
-- chain's first row (the session id, the access token's sid claim) and
-- login_at that row's creation time; both are copied on every rotation, so
-- the session keeps them after its first rows are purged.
-- theft_detected_at marks every row of a chain whose replay triggered the
-- theft response once, so that a later replay of any of its tokens changes
-- nothing more.

ALTER TABLE user_sessions
    ADD COLUMN chain_id uuid,
    ADD COLUMN login_at timestamptz,
    ADD COLUMN theft_detected_at timestamptz;
ALTER TABLE admin_sessions
    ADD COLUMN chain_id uuid,
    ADD COLUMN login_at timestamptz,
    ADD COLUMN theft_detected_at timestamptz;

-- Existing rows: walk each chain from its first row (the one no row was
-- replaced by); rows whose predecessor was purged start a chain of their own.
WITH RECURSIVE chain (id, root, login_at) AS (
    SELECT s.id, s.id, s.created_at FROM user_sessions s
    WHERE NOT EXISTS (SELECT 1 FROM user_sessions p WHERE p.replaced_by_session_id = s.id)
  UNION ALL
    SELECT n.id, c.root, c.login_at
    FROM chain c
    JOIN user_sessions cur ON cur.id = c.id
    JOIN user_sessions n ON n.id = cur.replaced_by_session_id
)
UPDATE user_sessions s SET chain_id = chain.root, login_at = chain.login_at
FROM chain WHERE s.id = chain.id;
UPDATE user_sessions SET chain_id = id, login_at = created_at WHERE chain_id IS NULL;

WITH RECURSIVE chain (id, root, login_at) AS (
    SELECT s.id, s.id, s.created_at FROM admin_sessions s
    WHERE NOT EXISTS (SELECT 1 FROM admin_sessions p WHERE p.replaced_by_session_id = s.id)
  UNION ALL
    SELECT n.id, c.root, c.login_at
    FROM chain c
    JOIN admin_sessions cur ON cur.id = c.id
    JOIN admin_sessions n ON n.id = cur.replaced_by_session_id
)
UPDATE admin_sessions s SET chain_id = chain.root, login_at = chain.login_at
FROM chain WHERE s.id = chain.id;
UPDATE admin_sessions SET chain_id = id, login_at = created_at WHERE chain_id IS NULL;

ALTER TABLE user_sessions ALTER COLUMN chain_id SET NOT NULL, ALTER COLUMN login_at SET NOT NULL;
ALTER TABLE admin_sessions ALTER COLUMN chain_id SET NOT NULL, ALTER COLUMN login_at SET NOT NULL;

-- The live row of a session, found by its id on every authenticated
-- request: at most one row of a chain is not revoked.
CREATE INDEX user_sessions_chain_live_idx ON user_sessions (chain_id) WHERE revoked_at IS NULL;
CREATE INDEX admin_sessions_chain_live_idx ON admin_sessions (chain_id) WHERE revoked_at IS NULL;

-- The admin's user list pages newest first.
CREATE INDEX users_created_at_idx ON users (created_at, id);

-- Security events, written in the transaction of the
-- change they record. An owner is a user or an admin, so there is no foreign
-- key: the log outlives a purge of sessions, and is purged by age.
CREATE TABLE security_events (
    id         uuid        NOT NULL,
    owner_type text        NOT NULL,
    owner_id   uuid        NOT NULL,
    type       text        NOT NULL,
    session_id uuid,
    ip_address text,
    user_agent text,
    data       jsonb       NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT security_events_pkey PRIMARY KEY (id),
    CONSTRAINT security_events_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT security_events_type_check CHECK (type IN (
        'register', 'login', 'login_failed', 'logout', 'logoutall', 'refresh_theft',
        'password_changed', 'password_reset_requested', 'password_reset', 'email_verified',
        'session_revoked', 'account_deactivated', 'account_activated', 'account_deleted',
        'account_restored')),
    CONSTRAINT security_events_ip_address_length CHECK (char_length(ip_address) <= 64),
    CONSTRAINT security_events_user_agent_length CHECK (char_length(user_agent) <= 512),
    CONSTRAINT security_events_data_object CHECK (jsonb_typeof(data) = 'object')
);
-- An owner's events newest first, paged by (created_at, id).
CREATE INDEX security_events_owner_idx ON security_events (owner_type, owner_id, created_at DESC, id DESC);
-- The purge of old events.
CREATE INDEX security_events_created_at_idx ON security_events (created_at);
