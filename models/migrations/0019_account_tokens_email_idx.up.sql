-- 0019: the address of an e-mail change or revert token, looked up on
-- every register, sign-up through an identity provider and change request
-- (is the address held for a revert link? how many mails went to it in
-- the hour?), is indexed, so those lookups do not scan the tokens.
CREATE INDEX account_tokens_email_idx ON account_tokens (owner_type, lower(email), purpose, created_at)
    WHERE email IS NOT NULL;
