-- 0009: sign-in through identity providers (OpenID Connect).
--
-- An account made through a provider has no password (NULL) until it
-- sets one through the password reset flow; its salt is then empty.
ALTER TABLE users ALTER COLUMN password DROP NOT NULL;

-- An identity is the pair (provider, subject): the provider's stable,
-- never reassigned id of a person. The e-mail is what the provider said at
-- the last sign-in (it may change there); it never decides who is who.
CREATE TABLE user_identities (
    id             uuid        NOT NULL,
    user_id        uuid        NOT NULL,
    provider       text        NOT NULL,
    subject        text        NOT NULL,
    email          text,
    email_verified boolean     NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    last_login_at  timestamptz,
    CONSTRAINT user_identities_pkey PRIMARY KEY (id),
    CONSTRAINT user_identities_user_id_fkey FOREIGN KEY (user_id)
        REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT user_identities_provider_subject_key UNIQUE (provider, subject),
    CONSTRAINT user_identities_provider_format CHECK (provider ~ '^[a-z0-9]{1,32}$'),
    CONSTRAINT user_identities_subject_length CHECK (char_length(subject) BETWEEN 1 AND 255),
    CONSTRAINT user_identities_email_length CHECK (char_length(email) <= 254)
);
CREATE INDEX user_identities_user_id_idx ON user_identities (user_id);

-- A sign-in (or link) through a provider, from its start to the one-time
-- result code the client exchanges. Nothing here is usable as stored: the
-- state, the nonce, the browser binding (the oidc-flow cookie) and the
-- result code are kept as lowercase hex SHA-256 of what was handed out,
-- and the PKCE verifier, which must be sent to the provider, is encrypted
-- (AES-256-GCM under DATA_ENCRYPTION_KEY, bound to the row). An app's flow
-- has no browser binding: the app's own PKCE challenge binds its result.
-- A link flow names the user and session it attaches the identity to.
CREATE TABLE oidc_flows (
    id                  uuid        NOT NULL,
    state_hash          text        NOT NULL,
    provider            text        NOT NULL,
    binding_hash        text,
    nonce_hash          text        NOT NULL,
    verifier_ciphertext bytea       NOT NULL,
    verifier_nonce      bytea       NOT NULL,
    redirect_to         text        NOT NULL,
    client              text        NOT NULL,
    code_challenge      text,
    link_user_id        uuid,
    link_session_id     uuid,
    expires_at          timestamptz NOT NULL,
    used_at             timestamptz,
    result_hash         text,
    result_user_id      uuid,
    result_event        text,
    result_expires_at   timestamptz,
    result_used_at      timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT oidc_flows_pkey PRIMARY KEY (id),
    CONSTRAINT oidc_flows_state_hash_key UNIQUE (state_hash),
    CONSTRAINT oidc_flows_result_hash_key UNIQUE (result_hash),
    CONSTRAINT oidc_flows_link_user_id_fkey FOREIGN KEY (link_user_id)
        REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT oidc_flows_result_user_id_fkey FOREIGN KEY (result_user_id)
        REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT oidc_flows_state_hash_format CHECK (state_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oidc_flows_binding_hash_format CHECK (binding_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oidc_flows_nonce_hash_format CHECK (nonce_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oidc_flows_result_hash_format CHECK (result_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT oidc_flows_verifier_nonce_length CHECK (octet_length(verifier_nonce) = 12),
    CONSTRAINT oidc_flows_provider_format CHECK (provider ~ '^[a-z0-9]{1,32}$'),
    CONSTRAINT oidc_flows_redirect_to_length CHECK (char_length(redirect_to) <= 2048),
    CONSTRAINT oidc_flows_client_check CHECK (client IN ('web', 'app')),
    CONSTRAINT oidc_flows_code_challenge_format CHECK (code_challenge ~ '^[A-Za-z0-9_-]{43}$'),
    CONSTRAINT oidc_flows_result_event_check CHECK (result_event IN ('login', 'register')),
    CONSTRAINT oidc_flows_result_complete CHECK (
        (result_hash IS NULL) = (result_user_id IS NULL)
        AND (result_hash IS NULL) = (result_event IS NULL)
        AND (result_hash IS NULL) = (result_expires_at IS NULL))
);
-- The purge of old flows.
CREATE INDEX oidc_flows_expires_at_idx ON oidc_flows (expires_at);
CREATE INDEX oidc_flows_link_user_id_idx ON oidc_flows (link_user_id) WHERE link_user_id IS NOT NULL;
CREATE INDEX oidc_flows_result_user_id_idx ON oidc_flows (result_user_id) WHERE result_user_id IS NOT NULL;
