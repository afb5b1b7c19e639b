DROP FUNCTION IF EXISTS post_preview(text, text);
