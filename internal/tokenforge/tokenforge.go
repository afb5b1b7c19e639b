// Package tokenforge builds forged and broken access tokens by hand, for
// the tests that check a verifier refuses them (the server's and the
// sibling services' verifier alike).
package tokenforge

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"maps"
	"strings"
)

// Signer returns the raw signature of a token's signing input.
type Signer func(input string) []byte

// Segment is the unpadded base64url encoding of v as JSON.
func Segment(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("tokenforge: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Forge builds header.payload.signature.
func Forge(header, payload map[string]any, sign Signer) string {
	input := Segment(header) + "." + Segment(payload)
	return input + "." + base64.RawURLEncoding.EncodeToString(sign(input))
}

// Header is a JOSE header of alg, with kid unless kid is empty.
func Header(alg, kid string) map[string]any {
	h := map[string]any{"alg": alg, "typ": "JWT"}
	if kid != "" {
		h["kid"] = kid
	}
	return h
}

// Decode returns the header and payload of a token.
func Decode(token string) (header, payload map[string]any) {
	parts := strings.Split(token, ".")
	for i, dst := range []*map[string]any{&header, &payload} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil || json.Unmarshal(raw, dst) != nil {
			panic("tokenforge: not a JWT: " + token)
		}
	}
	return header, payload
}

// HMAC signs HS256 with key.
func HMAC(key []byte) Signer {
	return func(input string) []byte {
		m := hmac.New(crypto.SHA256.New, key)
		m.Write([]byte(input))
		return m.Sum(nil)
	}
}

// Ed25519 signs EdDSA with priv.
func Ed25519(priv ed25519.PrivateKey) Signer {
	return func(input string) []byte { return ed25519.Sign(priv, []byte(input)) }
}

// ES256 signs ES256 with priv (r and s, 32 bytes each).
func ES256(priv *ecdsa.PrivateKey) Signer {
	return func(input string) []byte {
		d := crypto.SHA256.New()
		d.Write([]byte(input))
		r, s, err := ecdsa.Sign(rand.Reader, priv, d.Sum(nil))
		if err != nil {
			panic("tokenforge: " + err.Error())
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig
	}
}

// RS256 signs RS256 (RSASSA-PKCS1-v1_5 with SHA-256) with priv.
func RS256(priv *rsa.PrivateKey) Signer {
	return func(input string) []byte {
		d := crypto.SHA256.New()
		d.Write([]byte(input))
		sig, err := rsa.SignPKCS1v15(rand.Reader, priv, crypto.SHA256, d.Sum(nil))
		if err != nil {
			panic("tokenforge: " + err.Error())
		}
		return sig
	}
}

// None is the empty signature of alg "none".
func None(string) []byte { return nil }

// Attacks returns forged tokens, by name, built from good, a valid EdDSA
// token signed by the Ed25519 key pub named kid: each has the claims of
// good, so that only its forgery can make a verifier refuse it.
func Attacks(good, kid string, pub ed25519.PublicKey) map[string]string {
	_, payload := Decode(good)
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic("tokenforge: " + err.Error())
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	_, mine, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tampered := maps.Clone(payload) // a later expiry under the original signature
	tampered["exp"] = toInt(payload["exp"]) + 3600
	parts := strings.Split(good, ".")
	return map[string]string{
		"alg none":                       Forge(Header("none", kid), payload, None),
		"alg none without kid":           Forge(Header("none", ""), payload, None),
		"HS256 with the raw public key":  Forge(Header("HS256", ""), payload, HMAC(pub)),
		"HS256 with the raw key and kid": Forge(Header("HS256", kid), payload, HMAC(pub)),
		"HS256 with the JWK x":           Forge(Header("HS256", ""), payload, HMAC([]byte(base64.RawURLEncoding.EncodeToString(pub)))),
		"HS256 with the PKIX DER":        Forge(Header("HS256", ""), payload, HMAC(der)),
		"HS256 with the PEM":             Forge(Header("HS256", ""), payload, HMAC(pemBytes)),
		"HS256 with the PEM and kid":     Forge(Header("HS256", kid), payload, HMAC(pemBytes)),
		"unknown kid":                    Forge(Header("EdDSA", "no-such-key"), payload, Ed25519(mine)),
		"another key under the kid":      Forge(Header("EdDSA", kid), payload, Ed25519(mine)),
		"no kid":                         Forge(Header("EdDSA", ""), payload, Ed25519(mine)),
		"ES256 under an EdDSA kid":       Forge(Header("ES256", kid), payload, ES256(ec)),
		"tampered payload":               parts[0] + "." + Segment(tampered) + "." + parts[2],
		"truncated signature":            good[:len(good)-4],
	}
}

func toInt(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}
