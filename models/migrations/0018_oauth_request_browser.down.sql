-- 0018 down: requests are no longer bound to a browser secret.
ALTER TABLE oauth_requests DROP CONSTRAINT oauth_requests_browser_hash_format;
ALTER TABLE oauth_requests DROP COLUMN browser_hash;
