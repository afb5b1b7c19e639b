DROP TRIGGER IF EXISTS webauthn_credentials_changed ON webauthn_credentials;
DROP TRIGGER IF EXISTS mfa_totp_deleted ON mfa_totp;
DROP TRIGGER IF EXISTS mfa_totp_updated ON mfa_totp;
DROP TRIGGER IF EXISTS mfa_totp_inserted ON mfa_totp;
DROP FUNCTION IF EXISTS mfa_factor_changed();
DROP FUNCTION IF EXISTS refresh_mfa_enabled(text, uuid);
ALTER TABLE admins DROP COLUMN IF EXISTS mfa_enabled;
ALTER TABLE users DROP COLUMN IF EXISTS mfa_enabled;
