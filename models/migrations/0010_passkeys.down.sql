DROP TABLE IF EXISTS webauthn_challenges;
DROP TABLE IF EXISTS webauthn_user_handles;
DROP TABLE IF EXISTS webauthn_credentials;
