DROP TABLE IF EXISTS security_events;
DROP INDEX IF EXISTS users_created_at_idx;
DROP INDEX IF EXISTS admin_sessions_chain_live_idx;
DROP INDEX IF EXISTS user_sessions_chain_live_idx;
ALTER TABLE admin_sessions DROP COLUMN IF EXISTS theft_detected_at, DROP COLUMN IF EXISTS login_at, DROP COLUMN IF EXISTS chain_id;
ALTER TABLE user_sessions DROP COLUMN IF EXISTS theft_detected_at, DROP COLUMN IF EXISTS login_at, DROP COLUMN IF EXISTS chain_id;
