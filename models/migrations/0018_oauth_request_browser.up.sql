-- 0018: a pending authorization request is bound to the browser that made
-- it (CONTRACT §19). browser_hash is the SHA-256 (lowercase hex) of a
-- secret that only the browser's oauth-request cookie carries, never the
-- interaction URL: knowing a requestId is not enough to approve or deny
-- it. Rows of an instance that predates it have none and cannot be
-- approved (the user starts again; requests live 10 minutes).
ALTER TABLE oauth_requests ADD COLUMN browser_hash text;
ALTER TABLE oauth_requests ADD CONSTRAINT oauth_requests_browser_hash_format
    CHECK (browser_hash IS NULL OR browser_hash ~ '^[0-9a-f]{64}$');
