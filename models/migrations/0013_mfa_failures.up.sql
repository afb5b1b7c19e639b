-- 0013: the second-factor budget of an owner.
--
-- mfa_failures counts the owner's consecutive failed second-factor
-- attempts (any client, any factor); a successful second factor, a
-- completed password reset and an admin's resetmfa set it back to 0. At
-- 100 the second step is refused until one of the latter two. It lives
-- here, not in Redis, so that the stop is durable and exact across
-- instances: it is counted in the transaction that records the attempt's
-- mfa_challenge_failed event, under the owner's row lock.
-- mfa_failures_noticed_at is when the owner was last mailed about such
-- failures (at most once a day).
ALTER TABLE users ADD COLUMN mfa_failures integer NOT NULL DEFAULT 0,
    ADD COLUMN mfa_failures_noticed_at timestamptz;
ALTER TABLE admins ADD COLUMN mfa_failures integer NOT NULL DEFAULT 0,
    ADD COLUMN mfa_failures_noticed_at timestamptz;
