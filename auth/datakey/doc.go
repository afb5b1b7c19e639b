// Package datakey holds the service's data-encryption key: the one key
// under which it stores the secrets it must read back (TOTP secrets,
// identity-provider flow secrets, private signing keys), and from which it
// derives the keys of its keyed hashes (recovery codes).
//
// Seal encrypts with AES-256-GCM and a fresh random 96-bit nonce per
// message. Every message is bound to its context by additional data (for
// example the owner's id and the column it belongs to), so a ciphertext
// copied into another row does not open there. Open reports ErrOpen for
// any ciphertext that does not authenticate: a wrong key, a tampered value
// or a value moved out of its context, and never says which.
//
// Subkeys are derived with HKDF-SHA256, one per purpose name, so that the
// encryption key itself is never used for anything but encryption.
package datakey
