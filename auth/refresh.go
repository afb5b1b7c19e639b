package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// RefreshTokenBytes is the number of random bytes in a refresh token; its
// text form has twice as many hex characters.
const RefreshTokenBytes = 32

// NewRefreshToken returns a new opaque refresh token, 32 bytes from
// crypto/rand as 64 lowercase hex characters, and its hash as computed by
// HashRefreshToken. Only the hash may be stored.
func NewRefreshToken() (raw, hash string, err error) {
	var b [RefreshTokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("auth: refresh token: %w", err)
	}
	raw = hex.EncodeToString(b[:])
	return raw, HashRefreshToken(raw), nil
}

// HashRefreshToken returns the SHA-256 digest of the raw token's text, as 64
// lowercase hex characters. The hash is unkeyed on purpose: the token has
// 256 bits of entropy, so a keyed hash would add nothing against guessing,
// and REFRESH_TOKEN_SECRET plays no part (docs/security.md, Tokens).
func HashRefreshToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// WellFormedRefreshToken reports whether raw has the form of a token from
// NewRefreshToken: exactly 64 characters of 0-9 and a-f. Uppercase hex is
// refused: no issued token has it, and its hash could match no session
// anyway, so refusing it early changes no answer.
func WellFormedRefreshToken(raw string) bool {
	if len(raw) != 2*RefreshTokenBytes {
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
