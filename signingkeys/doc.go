// Package signingkeys keeps the bundled server's signing keys in
// PostgreSQL, table signing_keys: the access-token key (ACCESS_TOKEN_ALG
// EdDSA or ES256) and, beside it, the RSA 2048 key that signs the OpenID
// provider's ID tokens with RS256 (CONTRACT §19).
//
// Each key is named by its kid, the RFC 7638 thumbprint of its public
// key; its private part is stored sealed under DATA_ENCRYPTION_KEY
// (AES-256-GCM, bound to the row), so that a database dump alone cannot
// sign tokens. Its purpose column says what it signs: "access" or
// "id_token"; an RSA key is an ID-token key only, by a check constraint.
//
// The keys are made at the first start (of any number of processes
// starting at once, one makes each: at most one key of each purpose is
// current, by a unique index). The clock's RotateSigningKeys job replaces
// each once it is older than SIGNING_KEY_ROTATION: the new key is
// published at once and signs from a few minutes later (MaxLead), when the
// old one retires; the retired key stays published until retired_at + the
// longer of ACCESS_TOKEN_EXPIRES_IN and OAUTH_ACCESS_TOKEN_EXPIRES_IN +
// Margin, when the last token it signed has expired. Concurrent rotations
// make one key: the current key's row is updated, under its row lock, only
// while it is due. A process starting with another algorithm rotates the
// access-token key at once to a key of it; one starting with HS256 retires
// the current keys.
//
// A Ring holds one process's keys, reloaded every SIGNING_KEY_RELOAD and
// when a token names a kid it does not know (at most once per
// MaxUnknownReload), so that every instance verifies a key made by another
// long before its first token. Every published access-token key verifies
// whatever the configured algorithm, so that switching algorithm logs
// nobody out. The access-token side of a Ring (VerifyKey, SigningKey: its
// auth.KeySource) never sees an ID-token key, so no access token is signed
// or accepted with one; ID tokens are signed with IDTokenKey and checked
// with IDTokenVerifyKey, and the key set endpoint publishes both kinds
// (Published).
package signingkeys
