-- 0010: passkeys (WebAuthn credentials), the WebAuthn user handle of each
-- owner, and the server-side challenges of the WebAuthn ceremonies.
--
-- A passkey is one credential of one owner (a user or an admin, so there
-- is no foreign key). Its id (UUID v7) is the passkey id clients name; the
-- credential id is the authenticator's, unique over every owner type so
-- that a login can look a credential up before it knows whose it is.
-- sign_count is the authenticator's signature counter (32 bits unsigned):
-- never replaced by a smaller value. backup_eligible is fixed at
-- registration (a login whose flag differs is refused); backup_state is
-- refreshed on every use.
CREATE TABLE webauthn_credentials (
    id              uuid        NOT NULL,
    owner_type      text        NOT NULL,
    owner_id        uuid        NOT NULL,
    credential_id   bytea       NOT NULL,
    public_key      bytea       NOT NULL,
    sign_count      bigint      NOT NULL DEFAULT 0,
    aaguid          uuid        NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
    transports      text[]      NOT NULL DEFAULT '{}',
    user_verified   boolean     NOT NULL,
    backup_eligible boolean     NOT NULL,
    backup_state    boolean     NOT NULL,
    name            text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    last_used_at    timestamptz,
    CONSTRAINT webauthn_credentials_pkey PRIMARY KEY (id),
    CONSTRAINT webauthn_credentials_credential_id_key UNIQUE (credential_id),
    CONSTRAINT webauthn_credentials_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT webauthn_credentials_credential_id_length CHECK (octet_length(credential_id) BETWEEN 1 AND 1023),
    CONSTRAINT webauthn_credentials_public_key_length CHECK (octet_length(public_key) BETWEEN 1 AND 4096),
    CONSTRAINT webauthn_credentials_sign_count_range CHECK (sign_count BETWEEN 0 AND 4294967295),
    CONSTRAINT webauthn_credentials_transports_check
        CHECK (transports <@ ARRAY['usb', 'nfc', 'ble', 'smart-card', 'hybrid', 'internal']),
    CONSTRAINT webauthn_credentials_backup_check CHECK (backup_eligible OR NOT backup_state),
    CONSTRAINT webauthn_credentials_name_length CHECK (char_length(name) BETWEEN 1 AND 64)
);
CREATE INDEX webauthn_credentials_owner_idx ON webauthn_credentials (owner_type, owner_id);

-- The WebAuthn user handle of an owner: 32 random bytes, made when the
-- owner first registers a passkey. Authenticators store it with the
-- credential and return it at a login; it is neither the e-mail nor the
-- id, so a credential says nothing about whose it is.
CREATE TABLE webauthn_user_handles (
    owner_type text        NOT NULL,
    owner_id   uuid        NOT NULL,
    handle     bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webauthn_user_handles_pkey PRIMARY KEY (owner_type, owner_id),
    CONSTRAINT webauthn_user_handles_handle_key UNIQUE (handle),
    CONSTRAINT webauthn_user_handles_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT webauthn_user_handles_handle_length CHECK (octet_length(handle) = 32)
);

-- The challenge of one WebAuthn ceremony, kept by the server: what the
-- library needs to verify the answer (session_data, as JSON) and what the
-- ceremony is bound to: its purpose, its owner (none for a discoverable
-- login), the login challenge of a second step, the session of a
-- registration or re-authentication. It is spent (used_at) by the first
-- answer presented, whatever the outcome.
CREATE TABLE webauthn_challenges (
    id                 uuid        NOT NULL,
    owner_type         text        NOT NULL,
    owner_id           uuid,
    purpose            text        NOT NULL,
    login_challenge_id uuid,
    session_id         uuid,
    session_data       jsonb       NOT NULL,
    expires_at         timestamptz NOT NULL,
    used_at            timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webauthn_challenges_pkey PRIMARY KEY (id),
    CONSTRAINT webauthn_challenges_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT webauthn_challenges_purpose_check
        CHECK (purpose IN ('register', 'login', 'second_factor', 'reauthenticate')),
    CONSTRAINT webauthn_challenges_session_data_object CHECK (jsonb_typeof(session_data) = 'object')
);
-- The purge of old challenges.
CREATE INDEX webauthn_challenges_expires_at_idx ON webauthn_challenges (expires_at);
