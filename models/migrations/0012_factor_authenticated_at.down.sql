ALTER TABLE admin_sessions DROP COLUMN IF EXISTS factor_authenticated_at;
ALTER TABLE user_sessions DROP COLUMN IF EXISTS factor_authenticated_at;
