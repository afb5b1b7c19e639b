-- The preview of a post, computed where it is stored, so that publishing is
-- one statement: the body (or the title when the body is empty) with runs
-- of white space collapsed, cut at a word boundary (when one falls past
-- the 80th character) to at most 160 characters, with an ellipsis when cut.
CREATE FUNCTION post_preview(title text, body text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE
		WHEN char_length(t) <= 160 THEN t
		ELSE rtrim(
			CASE WHEN p BETWEEN 1 AND 78 THEN left(t, 159 - p) ELSE left(t, 159) END,
			' ,.;:') || '…'
	END
	FROM (
		SELECT t, position(' ' IN reverse(left(t, 159))) AS p
		FROM (SELECT coalesce(
			nullif(btrim(regexp_replace(body, '\s+', ' ', 'g')), ''),
			btrim(regexp_replace(title, '\s+', ' ', 'g'))) AS t) AS collapsed
	) AS measured
$$;
