package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
)

// Fixtures shared by the token and authenticator tests.
var (
	testSecret = []byte("test-secret-0123456789abcdef-0123456789")
	testT0     = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	testID     = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	testSID    = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01")
)

const user, admin = action.OwnerType("user"), action.OwnerType("admin")

// newTestTokens returns Tokens over testSecret whose clock reads *now.
func newTestTokens(tb testing.TB, now *time.Time) *Tokens {
	tb.Helper()
	tk, err := NewTokens(testSecret, "actionkit", 15*time.Minute, func() time.Time { return *now })
	if err != nil {
		tb.Fatalf("NewTokens: %v", err)
	}
	return tk
}

// claimsMap is a token payload as a JSON object, to be edited by a test.
type claimsMap map[string]any

// validPayload is the payload Issue would write for a user-web token of
// testID in session testSID, version 3, issued at testT0.
func validPayload() claimsMap {
	return claimsMap{
		"sub":          testID.String(),
		"sid":          testSID.String(),
		"type":         "user",
		"tokenVersion": 3,
		"iat":          testT0.Unix(),
		"exp":          testT0.Add(15 * time.Minute).Unix(),
		"iss":          "actionkit",
		"aud":          "user-web",
	}
}

// with returns a copy of m with key set to v, or removed when v is
// deleteKey.
func (m claimsMap) with(key string, v any) claimsMap {
	out := claimsMap{}
	for k, x := range m {
		out[k] = x
	}
	if v == deleteKey {
		delete(out, key)
	} else {
		out[key] = v
	}
	return out
}

type deleteMarker struct{}

var deleteKey = deleteMarker{}

// segment is the base64url (unpadded) encoding of v as JSON.
func segment(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal %v: %v", v, err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// forge builds header.payload.signature by hand; sign gets the signing
// input and returns the raw signature (nil for an empty one).
func forge(tb testing.TB, header, payload any, sign func(input string) []byte) string {
	tb.Helper()
	input := segment(tb, header) + "." + segment(tb, payload)
	return input + "." + base64.RawURLEncoding.EncodeToString(sign(input))
}

func hmacSigner(h crypto.Hash, key []byte) func(string) []byte {
	return func(input string) []byte {
		m := hmac.New(h.New, key)
		m.Write([]byte(input))
		return m.Sum(nil)
	}
}

func noSignature(string) []byte { return nil }

func header(alg string) map[string]string { return map[string]string{"alg": alg, "typ": "JWT"} }

// hs256 signs payload correctly with testSecret.
func hs256(tb testing.TB, payload any) string {
	tb.Helper()
	return forge(tb, header("HS256"), payload, hmacSigner(crypto.SHA256, testSecret))
}

// Asymmetric keys are slow to generate under -race: make them once.
var (
	keysOnce sync.Once
	rsaKey   *rsa.PrivateKey
	ecKey    *ecdsa.PrivateKey
	rsaPEM   []byte // the RSA public key, PEM-encoded
)

func asymmetricKeys(tb testing.TB) {
	tb.Helper()
	keysOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
		if err != nil {
			panic(err)
		}
		rsaPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	})
}

func rs256Signer(input string) []byte {
	d := crypto.SHA256.New()
	d.Write([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, rsaKey, crypto.SHA256, d.Sum(nil))
	if err != nil {
		panic(err)
	}
	return sig
}
