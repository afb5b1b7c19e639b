-- One-time tokens (password reset, e-mail verification), stored only as
-- the lowercase hex SHA-256 of the 64-character token. An owner is a user
-- or an admin, so there is no foreign key; tokens are short-lived and
-- useless once their owner is gone.
CREATE TABLE account_tokens (
    id         uuid        NOT NULL,
    owner_type text        NOT NULL,
    owner_id   uuid        NOT NULL,
    purpose    text        NOT NULL,
    token_hash text        NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT account_tokens_pkey PRIMARY KEY (id),
    CONSTRAINT account_tokens_token_hash_key UNIQUE (token_hash),
    CONSTRAINT account_tokens_owner_type_check CHECK (owner_type IN ('user', 'admin')),
    CONSTRAINT account_tokens_purpose_check CHECK (purpose IN ('password_reset', 'email_verify')),
    CONSTRAINT account_tokens_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$')
);
CREATE INDEX account_tokens_owner_idx ON account_tokens (owner_type, owner_id, purpose, created_at);

ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
ALTER TABLE admins ADD COLUMN email_verified_at timestamptz;
