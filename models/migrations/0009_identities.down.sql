DROP TABLE IF EXISTS oidc_flows;
DROP TABLE IF EXISTS user_identities;
-- An account without a password gets an empty one, which no login
-- accepts, so that the column can be required again.
UPDATE users SET password = '' WHERE password IS NULL;
ALTER TABLE users ALTER COLUMN password SET NOT NULL;
