-- 0017: an RS256 key that signs ID tokens (CONTRACT §19), kept in
-- signing_keys beside the access-token key.
--
-- purpose says what a key signs: 'access' (EdDSA or ES256: access tokens,
-- and the ID tokens of clients whose id_token_alg is ACCESS_TOKEN_ALG) or
-- 'id_token' (RS256, RSA 2048: ID tokens only, never an access token).
-- The algorithm follows from the purpose, so an RSA key can never be
-- stored as an access-token key. One key of each purpose is current (not
-- retired): the one-current-key index is now per purpose, so that two
-- instances starting at once, or two rotations at once, still make one
-- key of each.
ALTER TABLE signing_keys ADD COLUMN purpose text NOT NULL DEFAULT 'access';
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_alg_check;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_alg_check CHECK (alg IN ('EdDSA', 'ES256', 'RS256'));
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_purpose_check CHECK (purpose IN ('access', 'id_token'));
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_purpose_alg CHECK ((purpose = 'id_token') = (alg = 'RS256'));
DROP INDEX signing_keys_one_current_idx;
CREATE UNIQUE INDEX signing_keys_one_current_idx ON signing_keys (purpose) WHERE retired_at IS NULL;
