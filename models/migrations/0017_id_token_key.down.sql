-- 0017 down: the ID-token keys go, and one key is current again.
DELETE FROM signing_keys WHERE purpose = 'id_token';
DROP INDEX signing_keys_one_current_idx;
CREATE UNIQUE INDEX signing_keys_one_current_idx ON signing_keys ((true)) WHERE retired_at IS NULL;
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_purpose_alg;
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_purpose_check;
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_alg_check;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_alg_check CHECK (alg IN ('EdDSA', 'ES256'));
ALTER TABLE signing_keys DROP COLUMN purpose;
