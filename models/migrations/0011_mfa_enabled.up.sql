-- 0011: whether an owner has a second factor, stored on the owner's row.
--
-- Every authenticated request reads its owner's row, and the answer of a
-- read carries mfaEnabled: two EXISTS probes per request (mfa_totp and
-- webauthn_credentials) cost about a sixth of the read path's throughput.
-- The flag is kept by triggers on the two factor tables instead, so no
-- code path that adds or removes a factor can forget it, and it is what
-- the EXISTS would answer: a confirmed TOTP secret, or a passkey. The
-- triggers fire only on changes that can change the answer (a pending
-- TOTP secret, a passkey's use or its name do not).
ALTER TABLE users ADD COLUMN mfa_enabled boolean NOT NULL DEFAULT false;
ALTER TABLE admins ADD COLUMN mfa_enabled boolean NOT NULL DEFAULT false;

-- refresh_mfa_enabled sets the flag of one owner from its factors. It
-- locks the owner's row first and only then looks at the factors, in a
-- statement of its own (a new snapshot under READ COMMITTED): of two
-- transactions changing one owner's factors at once, the second waits
-- for the first to commit and then sees its change, so the flag never
-- keeps the value of a snapshot taken before the last commit.
CREATE FUNCTION refresh_mfa_enabled(kind text, owner uuid) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    enabled boolean;
BEGIN
    IF kind = 'user' THEN
        PERFORM 1 FROM users WHERE id = owner FOR NO KEY UPDATE;
    ELSIF kind = 'admin' THEN
        PERFORM 1 FROM admins WHERE id = owner FOR NO KEY UPDATE;
    ELSE
        RETURN;
    END IF;
    enabled := EXISTS (SELECT 1 FROM mfa_totp WHERE owner_type = kind AND owner_id = owner AND confirmed_at IS NOT NULL)
        OR EXISTS (SELECT 1 FROM webauthn_credentials WHERE owner_type = kind AND owner_id = owner);
    IF kind = 'user' THEN
        UPDATE users SET mfa_enabled = enabled WHERE id = owner AND mfa_enabled IS DISTINCT FROM enabled;
    ELSE
        UPDATE admins SET mfa_enabled = enabled WHERE id = owner AND mfa_enabled IS DISTINCT FROM enabled;
    END IF;
END;
$$;

-- mfa_factor_changed refreshes the owners of the old and the new row of a
-- change to a factor table.
CREATE FUNCTION mfa_factor_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM refresh_mfa_enabled(OLD.owner_type, OLD.owner_id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW.owner_type, NEW.owner_id) IS DISTINCT FROM (OLD.owner_type, OLD.owner_id)) THEN
        PERFORM refresh_mfa_enabled(NEW.owner_type, NEW.owner_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER mfa_totp_inserted AFTER INSERT ON mfa_totp
    FOR EACH ROW WHEN (NEW.confirmed_at IS NOT NULL) EXECUTE FUNCTION mfa_factor_changed();
CREATE TRIGGER mfa_totp_updated AFTER UPDATE ON mfa_totp
    FOR EACH ROW WHEN ((OLD.confirmed_at IS NULL) <> (NEW.confirmed_at IS NULL)
        OR (NEW.confirmed_at IS NOT NULL AND (NEW.owner_type, NEW.owner_id) IS DISTINCT FROM (OLD.owner_type, OLD.owner_id)))
    EXECUTE FUNCTION mfa_factor_changed();
CREATE TRIGGER mfa_totp_deleted AFTER DELETE ON mfa_totp
    FOR EACH ROW WHEN (OLD.confirmed_at IS NOT NULL) EXECUTE FUNCTION mfa_factor_changed();
CREATE TRIGGER webauthn_credentials_changed AFTER INSERT OR DELETE OR UPDATE OF owner_type, owner_id ON webauthn_credentials
    FOR EACH ROW EXECUTE FUNCTION mfa_factor_changed();

UPDATE users u SET mfa_enabled = true WHERE
    EXISTS (SELECT 1 FROM mfa_totp f WHERE f.owner_type = 'user' AND f.owner_id = u.id AND f.confirmed_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM webauthn_credentials w WHERE w.owner_type = 'user' AND w.owner_id = u.id);
UPDATE admins a SET mfa_enabled = true WHERE
    EXISTS (SELECT 1 FROM mfa_totp f WHERE f.owner_type = 'admin' AND f.owner_id = a.id AND f.confirmed_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM webauthn_credentials w WHERE w.owner_type = 'admin' AND w.owner_id = a.id);
