-- 0008: how strongly each session was authenticated, the second factor
-- (TOTP and recovery codes), and the pending second step of a login.
--
-- A session records the methods its login used (RFC 8176 values: pwd,
-- otp, rcv, hwk, fed), its assurance level (1, or 2 with two factors or a
-- user-verified passkey), its last interactive authentication (login,
-- second factor or re-authentication; a refresh keeps it) and, for an
-- identity-provider login, the provider. Every rotation copies the four.
-- The defaults describe what every session before this migration was (a
-- password login) and keep a binary of the previous version working
-- during a rolling deployment; this version always writes all four.
ALTER TABLE user_sessions
    ADD COLUMN auth_methods text[] NOT NULL DEFAULT '{pwd}',
    ADD COLUMN aal smallint NOT NULL DEFAULT 1,
    ADD COLUMN authenticated_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN provider text;
ALTER TABLE admin_sessions
    ADD COLUMN auth_methods text[] NOT NULL DEFAULT '{pwd}',
    ADD COLUMN aal smallint NOT NULL DEFAULT 1,
    ADD COLUMN authenticated_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN provider text;
-- An existing session was last authenticated when it logged in.
UPDATE user_sessions SET authenticated_at = login_at;
UPDATE admin_sessions SET authenticated_at = login_at;
ALTER TABLE user_sessions
    ADD CONSTRAINT user_sessions_auth_methods_check
        CHECK (cardinality(auth_methods) BETWEEN 1 AND 5 AND auth_methods <@ ARRAY['pwd', 'otp', 'rcv', 'hwk', 'fed']),
    ADD CONSTRAINT user_sessions_aal_check CHECK (aal IN (1, 2)),
    ADD CONSTRAINT user_sessions_provider_length CHECK (char_length(provider) <= 32);
ALTER TABLE admin_sessions
    ADD CONSTRAINT admin_sessions_auth_methods_check
        CHECK (cardinality(auth_methods) BETWEEN 1 AND 5 AND auth_methods <@ ARRAY['pwd', 'otp', 'rcv', 'hwk', 'fed']),
    ADD CONSTRAINT admin_sessions_aal_check CHECK (aal IN (1, 2)),
    ADD CONSTRAINT admin_sessions_provider_length CHECK (char_length(provider) <= 32);

-- A login whose first factor passed and whose second is owed. The mfaToken
-- handed to the client is stored only as the lowercase hex SHA-256 of its
-- 64 characters; the row remembers what the completed login must look like
-- (its client, platform, first factor and the API version of its answer).
-- An owner is a user or an admin, so there is no foreign key.
CREATE TABLE login_challenges (
    id               uuid        NOT NULL,
    owner_type       text        NOT NULL,
    owner_id         uuid        NOT NULL,
    token_hash       text        NOT NULL,
    first_factor     text        NOT NULL,
    provider         text,
    client           text        NOT NULL,
    platform         text        NOT NULL,
    user_agent       text,
    ip_address       text,
    response_version smallint    NOT NULL DEFAULT 1,
    attempts         integer     NOT NULL DEFAULT 0,
    expires_at       timestamptz NOT NULL,
    used_at          timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT login_challenges_pkey PRIMARY KEY (id),
    CONSTRAINT login_challenges_token_hash_key UNIQUE (token_hash),
    CONSTRAINT login_challenges_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT login_challenges_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT login_challenges_first_factor_check CHECK (first_factor IN ('pwd', 'hwk', 'fed')),
    CONSTRAINT login_challenges_provider_length CHECK (char_length(provider) <= 32),
    CONSTRAINT login_challenges_ip_address_length CHECK (char_length(ip_address) <= 64),
    CONSTRAINT login_challenges_user_agent_length CHECK (char_length(user_agent) <= 512),
    CONSTRAINT login_challenges_attempts_check CHECK (attempts >= 0)
);
-- Voiding an owner's pending challenges (password change, logout-all...).
CREATE INDEX login_challenges_owner_idx ON login_challenges (owner_type, owner_id) WHERE used_at IS NULL;
-- The purge of old challenges.
CREATE INDEX login_challenges_expires_at_idx ON login_challenges (expires_at);

-- One TOTP secret per owner: pending until confirmed_at is set. The secret
-- is stored only encrypted (AES-256-GCM under DATA_ENCRYPTION_KEY, bound to
-- the owner); last_used_step is the latest 30-second step a code was
-- accepted for, so that no step is accepted twice.
CREATE TABLE mfa_totp (
    id                uuid        NOT NULL,
    owner_type        text        NOT NULL,
    owner_id          uuid        NOT NULL,
    secret_ciphertext bytea       NOT NULL,
    secret_nonce      bytea       NOT NULL,
    confirmed_at      timestamptz,
    last_used_step    bigint,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mfa_totp_pkey PRIMARY KEY (id),
    CONSTRAINT mfa_totp_owner_key UNIQUE (owner_type, owner_id),
    CONSTRAINT mfa_totp_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT mfa_totp_secret_nonce_length CHECK (octet_length(secret_nonce) = 12)
);

-- Recovery codes, stored only as HMAC-SHA256 (lowercase hex) under a key
-- derived from DATA_ENCRYPTION_KEY; each is single use.
CREATE TABLE mfa_recovery_codes (
    id         uuid        NOT NULL,
    owner_type text        NOT NULL,
    owner_id   uuid        NOT NULL,
    code_hash  text        NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mfa_recovery_codes_pkey PRIMARY KEY (id),
    CONSTRAINT mfa_recovery_codes_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT mfa_recovery_codes_code_hash_format CHECK (code_hash ~ '^[0-9a-f]{64}$')
);
CREATE INDEX mfa_recovery_codes_owner_idx ON mfa_recovery_codes (owner_type, owner_id);

ALTER TABLE security_events DROP CONSTRAINT security_events_type_check;
ALTER TABLE security_events ADD CONSTRAINT security_events_type_check CHECK (type IN (
    'register', 'login', 'login_failed', 'logout', 'logoutall', 'refresh_theft',
    'password_changed', 'password_reset_requested', 'password_reset', 'email_verified',
    'session_revoked', 'account_deactivated', 'account_activated', 'account_deleted',
    'account_restored',
    'mfa_enabled', 'mfa_disabled', 'mfa_challenge_failed', 'recovery_code_used',
    'recovery_codes_regenerated', 'mfa_reset', 'reauthenticated', 'passkey_added',
    'passkey_removed', 'passkey_warning', 'identity_linked', 'identity_unlinked',
    'identity_login_failed'));
