-- The publish job stores a plain-text excerpt of the post for listings
-- and notifications.
ALTER TABLE posts ADD COLUMN preview text NOT NULL DEFAULT '';
ALTER TABLE posts ADD CONSTRAINT posts_preview_length CHECK (char_length(preview) <= 400);
