-- 0016: the account is the user's (CONTRACT §23): e-mail change and its
-- revert are one-time tokens that remember an address.
--
-- An email_change token carries the new address (mailed to it); an
-- email_revert token carries the old one (mailed to it), so that its use
-- puts that address back whatever happened to the account since.
ALTER TABLE account_tokens ADD COLUMN email text;
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('password_reset', 'email_verify', 'email_change', 'email_revert'));
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_email_check
    CHECK ((purpose IN ('email_change', 'email_revert')) = (email IS NOT NULL));

-- The clock's purge of users soft-deleted longer ago than the grace.
CREATE INDEX users_deleted_idx ON users (deleted_at) WHERE deleted_at IS NOT NULL;
