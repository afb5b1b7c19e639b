-- 0007: the keys that sign access tokens when ACCESS_TOKEN_ALG is EdDSA or
-- ES256 (HS256 tokens need none).
--
-- kid is the RFC 7638 thumbprint of the public key, public_key its PKIX
-- DER, and private_key_ciphertext the PKCS #8 DER of the private key
-- sealed with AES-256-GCM under DATA_ENCRYPTION_KEY (the 12-byte nonce
-- first), bound to the row's id and kid.
--
-- A key signs from activated_at until retired_at, and verifies until
-- retired_at plus the access-token lifetime and a margin, when its last
-- token has expired. A rotation sets the current key's retired_at to the
-- new key's activated_at, a few minutes ahead, so that every verifier
-- learns the new key before the first token it signs. At most one key is
-- not retired (the partial unique index): two instances starting at once,
-- or two rotations running at once, cannot both add a key.
CREATE TABLE signing_keys (
    id                     uuid        NOT NULL,
    kid                    text        NOT NULL,
    alg                    text        NOT NULL,
    public_key             bytea       NOT NULL,
    private_key_ciphertext bytea       NOT NULL,
    created_at             timestamptz NOT NULL DEFAULT now(),
    activated_at           timestamptz NOT NULL,
    retired_at             timestamptz,
    CONSTRAINT signing_keys_pkey PRIMARY KEY (id),
    CONSTRAINT signing_keys_kid_key UNIQUE (kid),
    CONSTRAINT signing_keys_alg_check CHECK (alg IN ('EdDSA', 'ES256')),
    CONSTRAINT signing_keys_kid_format CHECK (kid ~ '^[A-Za-z0-9_-]{1,128}$'),
    CONSTRAINT signing_keys_retired_after_activated CHECK (retired_at IS NULL OR retired_at >= activated_at)
);
CREATE UNIQUE INDEX signing_keys_one_current_idx ON signing_keys ((true)) WHERE retired_at IS NULL;
