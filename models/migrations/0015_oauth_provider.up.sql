-- 0015: actionkit as an OAuth 2.1 authorization server and OpenID provider
-- (CONTRACT §19), and the security event types of §22.
--
-- A client's sign-in is a session of the user: a chain of user_sessions
-- rows with client 'oauth', so that every path that ends a user's sessions
-- (logout everywhere, a password change or reset, a theft response,
-- deactivation, deletion) ends it too. What the authorization granted to
-- that session is in oauth_grants, keyed by the session id (chain_id),
-- which rotations keep.

-- The clients: registered by an admin, by dynamic registration (RFC 7591),
-- or named by a client ID metadata document (source 'metadata', whose
-- client_id is the document's URL and whose row caches the document until
-- metadata_expires_at). Secrets (32 random bytes) are stored only as the
-- lowercase hex SHA-256 of their base64url form.
CREATE TABLE oauth_clients (
    id uuid PRIMARY KEY,
    client_id text NOT NULL,
    secret_hash text,
    name text NOT NULL,
    redirect_uris text[] NOT NULL DEFAULT '{}',
    post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
    grant_types text[] NOT NULL DEFAULT '{authorization_code,refresh_token}',
    token_endpoint_auth_method text NOT NULL DEFAULT 'client_secret_basic',
    -- scope is the space-separated scopes the client may ask for; NULL
    -- (dynamic and metadata clients that named none) means any scope the
    -- server supports, each consented to by the user.
    scope text,
    min_aal smallint NOT NULL DEFAULT 1,
    id_token_alg text NOT NULL DEFAULT 'RS256',
    logo_uri text,
    client_uri text,
    source text NOT NULL,
    metadata_expires_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    last_used_at timestamptz,
    disabled_at timestamptz,
    CONSTRAINT oauth_clients_client_id_key UNIQUE (client_id),
    CONSTRAINT oauth_clients_client_id_length CHECK (char_length(client_id) BETWEEN 1 AND 2048),
    CONSTRAINT oauth_clients_source_check CHECK (source IN ('admin', 'dynamic', 'metadata')),
    CONSTRAINT oauth_clients_auth_method_check
        CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
    CONSTRAINT oauth_clients_secret_check
        CHECK ((token_endpoint_auth_method = 'none') = (secret_hash IS NULL)),
    CONSTRAINT oauth_clients_secret_hash_format CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oauth_clients_min_aal_check CHECK (min_aal IN (1, 2)),
    CONSTRAINT oauth_clients_id_token_alg_check CHECK (id_token_alg IN ('RS256', 'EdDSA', 'ES256')),
    CONSTRAINT oauth_clients_grant_types_check
        CHECK (grant_types <@ ARRAY['authorization_code', 'refresh_token', 'client_credentials']::text[])
);
-- The admin's list, newest first.
CREATE INDEX oauth_clients_created_idx ON oauth_clients (created_at DESC, id DESC);
-- The clock's purge of dynamic clients that never completed an authorization.
CREATE INDEX oauth_clients_unused_dynamic_idx ON oauth_clients (created_at)
    WHERE source = 'dynamic' AND last_used_at IS NULL;

-- The pending authorization requests: every parameter of /oauth2/authorize,
-- stored under the SHA-256 of the requestId the interaction page receives,
-- for 10 minutes, spent by approve or deny.
CREATE TABLE oauth_requests (
    id uuid PRIMARY KEY,
    request_hash text NOT NULL,
    client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE ON UPDATE CASCADE,
    redirect_uri text NOT NULL,
    scopes text[] NOT NULL,
    resources text[] NOT NULL DEFAULT '{}',
    state text,
    nonce text,
    code_challenge text NOT NULL,
    prompt text[] NOT NULL DEFAULT '{}',
    max_age integer,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    spent_at timestamptz,
    CONSTRAINT oauth_requests_request_hash_key UNIQUE (request_hash),
    CONSTRAINT oauth_requests_request_hash_format CHECK (request_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oauth_requests_max_age_check CHECK (max_age IS NULL OR max_age >= 0)
);
CREATE INDEX oauth_requests_expires_idx ON oauth_requests (expires_at);

-- The authorization codes: only their SHA-256 is stored; 60 s, single
-- use, bound to the client, redirect_uri, challenge, scopes, resources,
-- nonce and the approving session (approving_session_id, a chain_id).
-- session_id is the session the exchange opened, so that a second
-- presentation of the code ends every token issued from it.
CREATE TABLE oauth_codes (
    id uuid PRIMARY KEY,
    code_hash text NOT NULL,
    client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE ON UPDATE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    approving_session_id uuid NOT NULL,
    redirect_uri text NOT NULL,
    code_challenge text NOT NULL,
    scopes text[] NOT NULL,
    resources text[] NOT NULL DEFAULT '{}',
    nonce text,
    auth_time timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    spent_at timestamptz,
    session_id uuid,
    CONSTRAINT oauth_codes_code_hash_key UNIQUE (code_hash),
    CONSTRAINT oauth_codes_code_hash_format CHECK (code_hash ~ '^[0-9a-f]{64}$')
);
CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at);

-- What a user consented to for a client: the union of every approval.
CREATE TABLE oauth_consents (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE ON UPDATE CASCADE,
    scopes text[] NOT NULL,
    resources text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT oauth_consents_user_client_key UNIQUE (user_id, client_id)
);
CREATE INDEX oauth_consents_client_idx ON oauth_consents (client_id);

-- What an OAuth session was granted, keyed by its session id (the
-- chain_id of its user_sessions rows): the client, the scopes and
-- resources of the authorization, the audience of its current access
-- tokens (a refresh may name another granted resource), and when and how
-- the user authenticated (auth_time and amr of its ID tokens).
CREATE TABLE oauth_grants (
    session_id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE ON UPDATE CASCADE,
    scopes text[] NOT NULL,
    resources text[] NOT NULL DEFAULT '{}',
    audience text NOT NULL,
    auth_time timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX oauth_grants_user_client_idx ON oauth_grants (user_id, client_id);
CREATE INDEX oauth_grants_client_idx ON oauth_grants (client_id);

-- An OAuth session's rows carry client 'oauth'; they are refused by
-- /v1/users/refresh, and first-party rows by /oauth2/token.
ALTER TABLE user_sessions DROP CONSTRAINT user_sessions_client_check;
ALTER TABLE user_sessions ADD CONSTRAINT user_sessions_client_check CHECK (client IN ('web', 'app', 'oauth'));

ALTER TABLE security_events DROP CONSTRAINT security_events_type_check;
ALTER TABLE security_events ADD CONSTRAINT security_events_type_check CHECK (type IN (
    'register', 'login', 'login_failed', 'logout', 'logoutall', 'refresh_theft',
    'password_changed', 'password_reset_requested', 'password_reset', 'email_verified',
    'session_revoked', 'account_deactivated', 'account_activated', 'account_deleted',
    'account_restored',
    'mfa_enabled', 'mfa_disabled', 'mfa_challenge_failed', 'recovery_code_used',
    'recovery_codes_regenerated', 'mfa_reset', 'reauthenticated', 'passkey_added',
    'passkey_removed', 'passkey_warning', 'identity_linked', 'identity_unlinked',
    'identity_login_failed',
    'oauth_app_connected', 'oauth_app_revoked', 'email_changed', 'email_change_reverted',
    'user_updated'));
