package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// OpaqueTokenBytes is the number of random bytes in an opaque token; its
// text form has twice as many hex characters.
const OpaqueTokenBytes = 32

// NewOpaqueToken returns a new opaque token, 32 bytes from crypto/rand as
// 64 lowercase hex characters, and its hash as computed by
// HashOpaqueToken. Only the hash may be stored. Every token the server
// issues and looks up by its hash has this form: refresh tokens, the
// one-time tokens of the mail flows and the handles of second steps.
func NewOpaqueToken() (raw, hash string, err error) {
	var b [OpaqueTokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("auth: refresh token: %w", err)
	}
	raw = hex.EncodeToString(b[:])
	return raw, HashOpaqueToken(raw), nil
}

// HashOpaqueToken returns the SHA-256 digest of the raw token's text, as 64
// lowercase hex characters. The hash is unkeyed on purpose: the token has
// 256 bits of entropy, so a keyed hash would add nothing against guessing,
// and REFRESH_TOKEN_SECRET plays no part (docs/security.md, Tokens).
func HashOpaqueToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// WellFormedOpaqueToken reports whether raw has the form of a token from
// NewOpaqueToken: exactly 64 characters of 0-9 and a-f. Uppercase hex is
// refused: no issued token has it, and its hash could match no stored one
// anyway, so refusing it early changes no answer.
func WellFormedOpaqueToken(raw string) bool {
	if len(raw) != 2*OpaqueTokenBytes {
		return false
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
