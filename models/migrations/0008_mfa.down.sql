DELETE FROM security_events WHERE type IN (
    'mfa_enabled', 'mfa_disabled', 'mfa_challenge_failed', 'recovery_code_used',
    'recovery_codes_regenerated', 'mfa_reset', 'reauthenticated', 'passkey_added',
    'passkey_removed', 'passkey_warning', 'identity_linked', 'identity_unlinked',
    'identity_login_failed');
ALTER TABLE security_events DROP CONSTRAINT IF EXISTS security_events_type_check;
ALTER TABLE security_events ADD CONSTRAINT security_events_type_check CHECK (type IN (
    'register', 'login', 'login_failed', 'logout', 'logoutall', 'refresh_theft',
    'password_changed', 'password_reset_requested', 'password_reset', 'email_verified',
    'session_revoked', 'account_deactivated', 'account_activated', 'account_deleted',
    'account_restored'));
DROP TABLE IF EXISTS mfa_recovery_codes;
DROP TABLE IF EXISTS mfa_totp;
DROP TABLE IF EXISTS login_challenges;
ALTER TABLE admin_sessions
    DROP COLUMN IF EXISTS provider, DROP COLUMN IF EXISTS authenticated_at,
    DROP COLUMN IF EXISTS aal, DROP COLUMN IF EXISTS auth_methods;
ALTER TABLE user_sessions
    DROP COLUMN IF EXISTS provider, DROP COLUMN IF EXISTS authenticated_at,
    DROP COLUMN IF EXISTS aal, DROP COLUMN IF EXISTS auth_methods;
