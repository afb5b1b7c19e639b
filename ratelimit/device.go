package ratelimit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// A device value is 32 random bytes as 64 lowercase hex characters, the
// form of the service's other opaque credentials. Only a hash of it is
// stored; it proves nothing but that its holder logged in to an account
// before, and so only spares it the account's slow-down.

// NewDevice returns a new random device value.
func NewDevice() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}

// WellFormedDevice reports whether s has the form of a device value; any
// other value presented counts as no device at all.
func WellFormedDevice(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// deviceKey is the part of a Redis key that names a device: 128 bits of
// the SHA-256 of a well-formed value, "-" for none.
func deviceKey(device string) string {
	if !WellFormedDevice(device) {
		return "-"
	}
	sum := sha256.Sum256([]byte(device))
	return hex.EncodeToString(sum[:16])
}
