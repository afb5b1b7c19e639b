package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The signing algorithms of access tokens (the alg header).
const (
	// HS256 is HMAC-SHA256 under the shared secret, Tokens.Secret.
	HS256 = "HS256"
	// EdDSA is Ed25519.
	EdDSA = "EdDSA"
	// ES256 is ECDSA on the P-256 curve with SHA-256.
	ES256 = "ES256"
)

// RS256 is RSASSA-PKCS1-v1_5 with SHA-256, the algorithm every OpenID
// relying party supports: the OpenID provider signs ID tokens with it. It
// is no algorithm of access tokens: Tokens never signs nor accepts it.
const RS256 = "RS256"

// MinRSABits is the smallest RSA modulus a Key accepts.
const MinRSABits = 2048

// Algorithms lists every algorithm Tokens knows, HS256 first.
func Algorithms() []string { return []string{HS256, EdDSA, ES256} }

// Asymmetric reports whether alg is one of the public-key algorithms of
// access tokens, EdDSA or ES256 (not RS256, which signs ID tokens only).
func Asymmetric(alg string) bool { return alg == EdDSA || alg == ES256 }

// ErrUnknownKey is wrapped by a KeySource's answer for a kid it does not
// hold, or no longer publishes.
var ErrUnknownKey = errors.New("auth: unknown signing key")

// ErrNoSigningKey is wrapped by a KeySource's answer when it has no key to
// sign with (a source that only verifies, or none is active yet).
var ErrNoSigningKey = errors.New("auth: no signing key")

// Key is a public-key pair, named by its kid: of access tokens (EdDSA or
// ES256) or of ID tokens (RS256, which Tokens refuses). A Key is immutable
// once handed to Tokens.
type Key struct {
	// ID is the key id, written in the kid header of the tokens it signs.
	ID string
	// Alg is the one algorithm the key is used with, EdDSA, ES256 or RS256.
	Alg string
	// Public verifies: an ed25519.PublicKey for EdDSA, an *ecdsa.PublicKey
	// on P-256 for ES256, an *rsa.PublicKey of at least MinRSABits for
	// RS256.
	Public crypto.PublicKey
	// Private signs: the ed25519.PrivateKey, *ecdsa.PrivateKey or
	// *rsa.PrivateKey of Public; nil for a key that only verifies.
	Private crypto.Signer
	// ActiveFrom is when the key starts signing, RetiredAt when it stops
	// (zero: never); NotAfter is when it stops verifying (zero: never).
	// A KeySet reads them.
	ActiveFrom, RetiredAt, NotAfter time.Time
}

// Check reports whether k is usable: a non-empty ID, a known asymmetric
// Alg, a public key of that algorithm's type (and curve, or RSA size), and
// a private key, when set, that belongs to it.
func (k *Key) Check() error {
	if k.ID == "" {
		return errors.New("auth: key has no id")
	}
	switch pub := k.Public.(type) {
	case ed25519.PublicKey:
		if k.Alg != EdDSA || len(pub) != ed25519.PublicKeySize {
			return fmt.Errorf("auth: key %s: an Ed25519 key is not usable with %q", k.ID, k.Alg)
		}
	case *ecdsa.PublicKey:
		if k.Alg != ES256 || pub.Curve != elliptic.P256() {
			return fmt.Errorf("auth: key %s: an ECDSA key is usable with ES256 on P-256 only", k.ID)
		}
	case *rsa.PublicKey:
		if k.Alg != RS256 || pub.N == nil || pub.N.BitLen() < MinRSABits {
			return fmt.Errorf("auth: key %s: an RSA key is usable with RS256 only, of %d bits at least", k.ID, MinRSABits)
		}
	default:
		return fmt.Errorf("auth: key %s: public key of type %T, want Ed25519, ECDSA P-256 or RSA", k.ID, k.Public)
	}
	if k.Private == nil {
		return nil
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if pub, ok := k.Private.Public().(equaler); !ok || !pub.Equal(k.Public) {
		return fmt.Errorf("auth: key %s: the private key does not belong to the public key", k.ID)
	}
	return nil
}

// GenerateKey makes a new key pair for alg (EdDSA, ES256, or RS256: RSA
// of MinRSABits) from the system's random source. Its ID is left empty for
// the caller to set.
func GenerateKey(alg string) (*Key, error) {
	switch alg {
	case EdDSA:
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return &Key{Alg: alg, Public: pub, Private: priv}, nil
	case ES256:
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		return &Key{Alg: alg, Public: &priv.PublicKey, Private: priv}, nil
	case RS256:
		priv, err := rsa.GenerateKey(rand.Reader, MinRSABits)
		if err != nil {
			return nil, err
		}
		return &Key{Alg: alg, Public: &priv.PublicKey, Private: priv}, nil
	}
	return nil, fmt.Errorf("auth: cannot make a key for %q; want %s, %s or %s", alg, EdDSA, ES256, RS256)
}

// KeySource holds the asymmetric keys of a Tokens. Its methods are called
// on every Issue and on every Parse of an asymmetric token, concurrently:
// they should answer from memory.
type KeySource interface {
	// VerifyKey returns the key named kid, or an error wrapping
	// ErrUnknownKey when there is none (any other error is a failure to
	// find out). The returned key's Alg decides which algorithm its
	// tokens must carry.
	VerifyKey(ctx context.Context, kid string) (*Key, error)
	// SigningKey returns the key new tokens are signed with, its Private
	// set, or an error wrapping ErrNoSigningKey.
	SigningKey() (*Key, error)
}

// checkAlgorithms validates an allow-list against what t can verify.
func (t *Tokens) checkAlgorithms(algs []string) error {
	if len(algs) == 0 {
		return errors.New("auth: no algorithm is accepted")
	}
	for _, a := range algs {
		switch {
		case !slices.Contains(Algorithms(), a):
			return fmt.Errorf("auth: unknown algorithm %q; want %s, %s or %s", a, HS256, EdDSA, ES256)
		case a == HS256 && len(t.Secret) == 0:
			return errors.New("auth: HS256 is accepted but there is no secret")
		case a != HS256 && t.Keys == nil:
			return fmt.Errorf("auth: %s is accepted but there are no keys", a)
		}
	}
	return nil
}
