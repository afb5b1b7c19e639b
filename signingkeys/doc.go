// Package signingkeys keeps the bundled server's access-token signing keys
// (ACCESS_TOKEN_ALG EdDSA or ES256) in PostgreSQL, table signing_keys.
//
// Each key is named by its kid, the RFC 7638 thumbprint of its public
// key; its private part is stored sealed under DATA_ENCRYPTION_KEY
// (AES-256-GCM, bound to the row), so that a database dump alone cannot
// sign tokens.
//
// A key is made at the first start (of any number of processes starting
// at once, one makes it: at most one key is current, by a unique index).
// The clock's RotateSigningKeys job replaces it once it is older than
// SIGNING_KEY_ROTATION: the new key is published at once and signs from a
// few minutes later (MaxLead), when the old one retires; the retired key
// stays published until retired_at + ACCESS_TOKEN_EXPIRES_IN + Margin,
// when the last token it signed has expired. Concurrent rotations make one
// key: the current key's row is updated, under its row lock, only while
// it is due. A process starting with another algorithm rotates at once to
// a key of it; one starting with HS256 retires the current key.
//
// A Ring holds one process's keys, reloaded every SIGNING_KEY_RELOAD and
// when a token names a kid it does not know (at most once per
// MaxUnknownReload), so that every instance verifies a key made by another
// long before its first token. Every published key verifies whatever the
// configured algorithm, so that switching algorithm logs nobody out.
package signingkeys
