package jwks

import (
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-jose/go-jose/v4"

	"github.com/actionkit/actionkit/auth"
)

// document is a JSON Web Key Set as served: {"keys":[…]}.
type document struct {
	// Keys are the public keys, each with kid, alg and use "sig".
	Keys []jose.JSONWebKey `json:"keys"`
}

// Marshal writes the JSON Web Key Set of the public parts of keys: for
// each one kty, crv and x (and y) or n and e as its type needs, kid, alg
// and use "sig".
// Private parts are never written. An empty list gives {"keys":[]}.
func Marshal(keys []*auth.Key) ([]byte, error) {
	doc := document{Keys: make([]jose.JSONWebKey, 0, len(keys))}
	for _, k := range keys {
		if err := k.Check(); err != nil {
			return nil, err
		}
		doc.Keys = append(doc.Keys, jose.JSONWebKey{Key: k.Public, KeyID: k.ID, Algorithm: k.Alg, Use: "sig"})
	}
	return json.Marshal(doc)
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of a public key,
// base64url without padding: a stable key id that names the key itself.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	jwk := jose.JSONWebKey{Key: pub}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("jwks: thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// privateMembers are the JWK members that carry secret material; a key
// set that holds one is refused before any key is decoded.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv"}

// ErrAlgNotAllowed is wrapped by ParseKey's refusal of a key that is
// sound but of an algorithm outside the allowed ones, such as the RS256
// ID-token keys the server publishes beside its access-token keys.
var ErrAlgNotAllowed = errors.New("jwks: a key of an algorithm that is not allowed")

// ParseKey reads one JWK of a key set as a verify-only auth.Key. It
// refuses a key that carries private or symmetric material, has no kid,
// no alg, a use other than "sig", or a key type that does not fit its alg
// (an Ed25519 OKP key for EdDSA, an EC P-256 key for ES256, an RSA key of
// auth.MinRSABits for RS256); and then, wrapping ErrAlgNotAllowed, a
// key whose alg is not in allowed.
func ParseKey(raw json.RawMessage, allowed []string) (*auth.Key, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("jwks: a key is not a JSON object: %w", err)
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, fmt.Errorf("jwks: a key carries the private member %q", m)
		}
	}
	var head struct {
		Kty string `json:"kty"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || (head.Kty != "OKP" && head.Kty != "EC" && head.Kty != "RSA") {
		return nil, fmt.Errorf("jwks: key type %q; want OKP, EC or RSA", head.Kty)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	switch {
	case jwk.KeyID == "":
		return nil, errors.New("jwks: a key has no kid")
	case jwk.Algorithm == "":
		return nil, fmt.Errorf("jwks: key %s has no alg", jwk.KeyID)
	case jwk.Use != "" && jwk.Use != "sig":
		return nil, fmt.Errorf("jwks: key %s: use %q; want sig", jwk.KeyID, jwk.Use)
	case !jwk.IsPublic():
		return nil, fmt.Errorf("jwks: key %s is not a public key", jwk.KeyID)
	}
	k := &auth.Key{ID: jwk.KeyID, Alg: jwk.Algorithm, Public: jwk.Key}
	if err := k.Check(); err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	if !slices.Contains(allowed, k.Alg) {
		return nil, fmt.Errorf("%w: key %s: alg %q", ErrAlgNotAllowed, k.ID, k.Alg)
	}
	return k, nil
}
