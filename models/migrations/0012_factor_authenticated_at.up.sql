-- 0012: when each session last used a second factor.
--
-- factor_authenticated_at is the session's last authentication with a
-- second factor or a user-verified passkey: at its login, at the
-- confirmation of its TOTP, or at a re-authentication with a factor; a
-- password re-authentication and a refresh keep it, and every rotation
-- copies it. The changes to the second factor of an owner who has one
-- (passkey register and remove, TOTP enrolment and disable, recovery
-- codes) ask for it to be within REAUTH_MAX_AGE. NULL means the session
-- never used a factor; existing sessions start so, and re-authenticate
-- with a factor before such a change.
ALTER TABLE user_sessions ADD COLUMN factor_authenticated_at timestamptz;
ALTER TABLE admin_sessions ADD COLUMN factor_authenticated_at timestamptz;
