-- 0015 down: the OAuth provider's tables and the §22 event types go.
DELETE FROM security_events WHERE type IN ('oauth_app_connected', 'oauth_app_revoked',
    'email_changed', 'email_change_reverted', 'user_updated');
ALTER TABLE security_events DROP CONSTRAINT security_events_type_check;
ALTER TABLE security_events ADD CONSTRAINT security_events_type_check CHECK (type IN (
    'register', 'login', 'login_failed', 'logout', 'logoutall', 'refresh_theft',
    'password_changed', 'password_reset_requested', 'password_reset', 'email_verified',
    'session_revoked', 'account_deactivated', 'account_activated', 'account_deleted',
    'account_restored',
    'mfa_enabled', 'mfa_disabled', 'mfa_challenge_failed', 'recovery_code_used',
    'recovery_codes_regenerated', 'mfa_reset', 'reauthenticated', 'passkey_added',
    'passkey_removed', 'passkey_warning', 'identity_linked', 'identity_unlinked',
    'identity_login_failed'));
DELETE FROM user_sessions WHERE client = 'oauth';
ALTER TABLE user_sessions DROP CONSTRAINT user_sessions_client_check;
ALTER TABLE user_sessions ADD CONSTRAINT user_sessions_client_check CHECK (client IN ('web', 'app'));
DROP TABLE IF EXISTS oauth_grants;
DROP TABLE IF EXISTS oauth_consents;
DROP TABLE IF EXISTS oauth_codes;
DROP TABLE IF EXISTS oauth_requests;
DROP TABLE IF EXISTS oauth_clients;
