DROP INDEX IF EXISTS users_deleted_idx;
DELETE FROM account_tokens WHERE purpose IN ('email_change', 'email_revert');
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_email_check;
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('password_reset', 'email_verify'));
ALTER TABLE account_tokens DROP COLUMN email;
