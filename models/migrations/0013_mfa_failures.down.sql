ALTER TABLE admins DROP COLUMN IF EXISTS mfa_failures_noticed_at, DROP COLUMN IF EXISTS mfa_failures;
ALTER TABLE users DROP COLUMN IF EXISTS mfa_failures_noticed_at, DROP COLUMN IF EXISTS mfa_failures;
