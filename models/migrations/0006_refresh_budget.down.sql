ALTER TABLE admin_sessions DROP COLUMN IF EXISTS refresh_count, DROP COLUMN IF EXISTS refresh_window_at;
ALTER TABLE user_sessions DROP COLUMN IF EXISTS refresh_count, DROP COLUMN IF EXISTS refresh_window_at;
