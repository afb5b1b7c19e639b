-- 0001_init down: drops every table of the up migration (their indexes and
-- constraints go with them). Sessions first, then their owners.
DROP TABLE IF EXISTS admin_sessions;
DROP TABLE IF EXISTS admins;
DROP TABLE IF EXISTS posts;
DROP TABLE IF EXISTS user_sessions;
DROP TABLE IF EXISTS users;
