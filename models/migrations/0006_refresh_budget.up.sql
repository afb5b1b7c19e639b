-- 0006: abuse-protection state kept with the sessions.
--
-- The refresh budget is a session's (a chain of rotations), not its client
-- address's: one office behind one address may hold hundreds of sessions.
-- refresh_window_at is when the chain's current budget window opened (its
-- first refresh in it; NULL before any) and refresh_count the refreshes in
-- that window. Each rotation writes them forward to the successor (one more
-- refresh, or a new window), so the chain's live row always holds its
-- budget and checking it costs no extra read.
--
-- The per-account slow-down's trust of a client (by address or by device
-- cookie) lives in Redis with the rest of the slow-down's state: nothing of
-- it is stored here.

ALTER TABLE user_sessions
    ADD COLUMN refresh_window_at timestamptz,
    ADD COLUMN refresh_count integer NOT NULL DEFAULT 0,
    ADD CONSTRAINT user_sessions_refresh_count_check CHECK (refresh_count >= 0);
ALTER TABLE admin_sessions
    ADD COLUMN refresh_window_at timestamptz,
    ADD COLUMN refresh_count integer NOT NULL DEFAULT 0,
    ADD CONSTRAINT admin_sessions_refresh_count_check CHECK (refresh_count >= 0);
