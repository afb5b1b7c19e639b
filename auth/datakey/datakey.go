package datakey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Size is the length of a data-encryption key in bytes (AES-256).
const Size = 32

// NonceSize is the length of the nonce Seal returns.
const NonceSize = 12

// ErrOpen reports a ciphertext that does not authenticate under the key
// and context it was opened with.
var ErrOpen = errors.New("datakey: ciphertext does not open under this key")

// deriveInfo is the HKDF info of a key derived from another secret.
const deriveInfo = "actionkit data-encryption key v1"

// Key is a data-encryption key. Its zero value is not usable; make one with
// New, Parse, Derive or Random. A Key is safe for concurrent use.
type Key struct {
	raw  [Size]byte
	aead cipher.AEAD
}

// New makes a Key of exactly Size bytes.
func New(raw []byte) (*Key, error) {
	if len(raw) != Size {
		return nil, fmt.Errorf("datakey: key is %d bytes; want %d", len(raw), Size)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	k := &Key{aead: aead}
	copy(k.raw[:], raw)
	return k, nil
}

// Parse reads a key written as 64 hexadecimal characters.
func Parse(s string) (*Key, error) {
	if len(s) != 2*Size {
		return nil, fmt.Errorf("datakey: key is %d characters; want %d hexadecimal characters", len(s), 2*Size)
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("datakey: key is not hexadecimal")
	}
	return New(raw)
}

// Derive makes the key that belongs to secret (HKDF-SHA256), for the
// development and test settings where the key follows the token secret.
func Derive(secret []byte) (*Key, error) {
	if len(secret) == 0 {
		return nil, errors.New("datakey: cannot derive a key from an empty secret")
	}
	raw, err := hkdf.Key(sha256.New, secret, nil, deriveInfo, Size)
	if err != nil {
		return nil, err
	}
	return New(raw)
}

// Random makes a key from the system's random source.
func Random() (*Key, error) {
	raw := make([]byte, Size)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	return New(raw)
}

// Seal encrypts plaintext bound to context, returning the ciphertext
// (with its authentication tag) and the nonce to store beside it.
func (k *Key) Seal(plaintext, context []byte) (ciphertext, nonce []byte, err error) {
	nonce = make([]byte, NonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return k.aead.Seal(nil, nonce, plaintext, context), nonce, nil
}

// Open decrypts what Seal returned for the same context. Any failure is
// ErrOpen.
func (k *Key) Open(ciphertext, nonce, context []byte) ([]byte, error) {
	if len(nonce) != NonceSize {
		return nil, ErrOpen
	}
	plain, err := k.aead.Open(nil, nonce, ciphertext, context)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// Subkey derives the 32-byte key of one purpose (HKDF-SHA256 with the
// purpose as info). Distinct purposes give independent keys.
func (k *Key) Subkey(purpose string) []byte {
	out, err := hkdf.Key(sha256.New, k.raw[:], nil, "actionkit subkey: "+purpose, Size)
	if err != nil {
		panic("datakey: hkdf: " + err.Error()) // only for lengths beyond 255 hashes
	}
	return out
}

// MAC is HMAC-SHA256 of msg under the subkey of purpose.
func (k *Key) MAC(purpose string, msg []byte) []byte {
	m := hmac.New(sha256.New, k.Subkey(purpose))
	m.Write(msg)
	return m.Sum(nil)
}

// Fingerprint identifies the key without revealing it: the first 8 bytes
// of its "fingerprint" subkey, in hex. A service can store it beside what
// it encrypted and tell at start that it was given another key.
func (k *Key) Fingerprint() string {
	return hex.EncodeToString(k.Subkey("fingerprint")[:8])
}
