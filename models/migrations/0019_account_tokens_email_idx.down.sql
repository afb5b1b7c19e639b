-- 0019 down: the index on the tokens' addresses goes.
DROP INDEX IF EXISTS account_tokens_email_idx;
