package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/internal/tokenforge"
)

// memoryKeys is a KeySource over a map, changed by the tests.
type memoryKeys struct {
	mu      sync.Mutex
	signing string
	keys    map[string]*Key
	lookups int
}

func (m *memoryKeys) VerifyKey(_ context.Context, kid string) (*Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lookups++
	if k, ok := m.keys[kid]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("kid %q: %w", kid, ErrUnknownKey)
}

func (m *memoryKeys) SigningKey() (*Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.keys[m.signing]; ok {
		return k, nil
	}
	return nil, ErrNoSigningKey
}

func (m *memoryKeys) remove(kid string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.keys, kid)
}

// testKey makes a key of alg named kid.
func testKey(tb testing.TB, alg, kid string) *Key {
	tb.Helper()
	k, err := GenerateKey(alg)
	if err != nil {
		tb.Fatal(err)
	}
	k.ID = kid
	if err := k.Check(); err != nil {
		tb.Fatal(err)
	}
	return k
}

// asymmetricTokens returns Tokens issuing alg tokens with a fresh key of
// each algorithm (kids "ed-1" and "ec-1"), accepting HS256 under
// testSecret too when withSecret, and its key source.
func asymmetricTokens(tb testing.TB, alg string, withSecret bool, now *time.Time) (*Tokens, *memoryKeys) {
	tb.Helper()
	keys := &memoryKeys{keys: map[string]*Key{
		"ed-1": testKey(tb, EdDSA, "ed-1"),
		"ec-1": testKey(tb, ES256, "ec-1"),
	}, signing: map[string]string{EdDSA: "ed-1", ES256: "ec-1"}[alg]}
	tk := &Tokens{Alg: alg, Keys: keys, Issuer: "actionkit", TTL: 15 * time.Minute, Now: func() time.Time { return *now }}
	if withSecret {
		tk.Secret = testSecret
	}
	if err := tk.init(); err != nil {
		tb.Fatal(err)
	}
	return tk, keys
}

func TestAsymmetricRoundTrip(t *testing.T) {
	for _, tc := range []struct{ alg, kid string }{{EdDSA, "ed-1"}, {ES256, "ec-1"}} {
		t.Run(tc.alg, func(t *testing.T) {
			now := testT0
			tk, _ := asymmetricTokens(t, tc.alg, false, &now)
			token, exp, err := tk.Issue(user, testID, testSID, 4, action.App)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := tokenforge.Decode(token); h["alg"] != tc.alg || h["kid"] != tc.kid {
				t.Errorf("header %v, want alg %s and kid %s", h, tc.alg, tc.kid)
			}
			got, err := tk.Parse(user, token)
			want := Claims{Subject: testID, SessionID: testSID, Type: user, TokenVersion: 4, Client: action.App,
				IssuedAt: testT0, ExpiresAt: exp, KeyID: tc.kid}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

// pkix returns the DER and PEM forms of a public key.
func pkix(tb testing.TB, pub crypto.PublicKey) (der, pemBytes []byte) {
	tb.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		tb.Fatal(err)
	}
	return der, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// badAsymmetricTokens lists forged or broken tokens against a Tokens whose
// keys are "ed-1" (Ed25519) and "ec-1" (P-256).
func badAsymmetricTokens(t *testing.T, keys *memoryKeys, good string) map[string]string {
	ed, ec := keys.keys["ed-1"], keys.keys["ec-1"]
	edRaw := []byte(ed.Public.(ed25519.PublicKey))
	edDER, edPEM := pkix(t, ed.Public)
	ecDER, ecPEM := pkix(t, ec.Public)
	payload := validPayload()
	edSign := func(input string) []byte { return ed25519.Sign(ed.Private.(ed25519.PrivateKey), []byte(input)) }
	kidHeader := func(alg, kid string) map[string]string {
		return map[string]string{"alg": alg, "typ": "JWT", "kid": kid}
	}
	parts := strings.Split(good, ".")
	tampered := segment(t, payload.with("sub", "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c"))
	return map[string]string{
		"alg none":                        forge(t, map[string]string{"alg": "none", "kid": "ed-1"}, payload, noSignature),
		"alg none without kid":            forge(t, header("none"), payload, noSignature),
		"HS256 with the raw Ed25519 key":  forge(t, kidHeader("HS256", "ed-1"), payload, hmacSigner(crypto.SHA256, edRaw)),
		"HS256 with the JWK x":            forge(t, header("HS256"), payload, hmacSigner(crypto.SHA256, []byte(base64.RawURLEncoding.EncodeToString(edRaw)))),
		"HS256 with the Ed25519 DER":      forge(t, header("HS256"), payload, hmacSigner(crypto.SHA256, edDER)),
		"HS256 with the Ed25519 PEM":      forge(t, header("HS256"), payload, hmacSigner(crypto.SHA256, edPEM)),
		"HS256 with the P-256 DER":        forge(t, header("HS256"), payload, hmacSigner(crypto.SHA256, ecDER)),
		"HS256 with the P-256 PEM":        forge(t, header("HS256"), payload, hmacSigner(crypto.SHA256, ecPEM)),
		"unknown kid":                     forge(t, kidHeader("EdDSA", "ed-2"), payload, edSign),
		"no kid":                          forge(t, header("EdDSA"), payload, edSign),
		"kid of an ES256 key, EdDSA alg":  forge(t, kidHeader("EdDSA", "ec-1"), payload, edSign),
		"kid of an EdDSA key, ES256 alg":  forge(t, kidHeader("ES256", "ed-1"), payload, tokenforge.ES256(ec.Private.(*ecdsa.PrivateKey))),
		"tampered payload":                parts[0] + "." + tampered + "." + parts[2],
		"signature of another key":        forge(t, kidHeader("EdDSA", "ed-1"), payload, func(string) []byte { return make([]byte, 64) }),
		"expired":                         forge(t, kidHeader("EdDSA", "ed-1"), payload.with("exp", testT0.Add(-time.Hour).Unix()), edSign),
		"RS256 with a kid":                forge(t, kidHeader("RS256", "ed-1"), payload, rs256Signer),
		"kid that is not a string":        forge(t, map[string]any{"alg": "EdDSA", "kid": 1}, payload, edSign),
		"HS256 with the secret and a kid": forge(t, kidHeader("HS256", "ed-1"), payload, hmacSigner(crypto.SHA256, testSecret)),
	}
}

func TestAsymmetricRefusals(t *testing.T) {
	asymmetricKeys(t)
	for _, withSecret := range []bool{false, true} {
		t.Run(fmt.Sprintf("secret %v", withSecret), func(t *testing.T) {
			now := testT0
			tk, keys := asymmetricTokens(t, EdDSA, withSecret, &now)
			good, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
			if err != nil {
				t.Fatal(err)
			}
			for name, token := range badAsymmetricTokens(t, keys, good) {
				if _, err := tk.Parse(user, token); !errors.Is(err, ErrInvalidToken) {
					t.Errorf("%s: Parse = %v, want ErrInvalidToken", name, err)
				}
			}
			hs := hs256(t, validPayload())
			if _, err := tk.Parse(user, hs); (err == nil) != withSecret {
				t.Errorf("a good HS256 token: Parse = %v, with the secret configured %v", err, withSecret)
			}
		})
	}
}

// A token whose kid is not in Algorithms is refused even though its key is
// known and the signature good.
func TestAsymmetricAllowList(t *testing.T) {
	now := testT0
	tk, keys := asymmetricTokens(t, ES256, false, &now)
	token, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	strict := &Tokens{Keys: keys, Algorithms: []string{EdDSA}, Now: tk.Now}
	if _, err := strict.Parse(user, token); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("an ES256 token with EdDSA allowed only: Parse = %v", err)
	}
	if _, _, err := strict.Issue(user, testID, testSID, 3, action.Web); err == nil {
		t.Fatal("a Tokens that only verifies issued a token")
	}
	for name, bad := range map[string]*Tokens{
		"HS256 allowed without a secret": {Keys: keys, Algorithms: []string{HS256, EdDSA}},
		"EdDSA allowed without keys":     {Secret: testSecret, Algorithms: []string{HS256, EdDSA}},
		"EdDSA issued without keys":      {Secret: testSecret, Alg: EdDSA},
		"HS256 issued without a secret":  {Keys: keys, Alg: HS256},
		"an unknown algorithm allowed":   {Keys: keys, Algorithms: []string{"RS256"}},
		"an unknown algorithm issued":    {Keys: keys, Alg: "PS256"},
		"nothing allowed":                {Keys: keys, Algorithms: []string{}},
	} {
		if err := bad.init(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A cached token stops verifying once its key is gone from the source.
func TestCachedTokenNeedsItsKey(t *testing.T) {
	now := testT0
	tk, keys := asymmetricTokens(t, EdDSA, false, &now)
	token, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tk.Parse(user, token); err != nil {
			t.Fatal(err)
		}
	}
	keys.remove("ed-1")
	if _, err := tk.Parse(user, token); !errors.Is(err, ErrInvalidToken) || !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("after its key left: Parse = %v, want ErrInvalidToken and ErrUnknownKey", err)
	}
	if _, _, err := tk.Issue(user, testID, testSID, 3, action.Web); !errors.Is(err, ErrNoSigningKey) {
		t.Fatalf("Issue without a signing key = %v", err)
	}
}

func TestKeyCheck(t *testing.T) {
	asymmetricKeys(t)
	ed, ec := testKey(t, EdDSA, "a"), testKey(t, ES256, "b")
	for name, k := range map[string]*Key{
		"no id":                     {Alg: EdDSA, Public: ed.Public},
		"Ed25519 key called ES256":  {ID: "a", Alg: ES256, Public: ed.Public},
		"P-256 key called EdDSA":    {ID: "b", Alg: EdDSA, Public: ec.Public},
		"a private key of another":  {ID: "a", Alg: EdDSA, Public: ed.Public, Private: testKey(t, EdDSA, "c").Private},
		"a secret as a public key":  {ID: "a", Alg: EdDSA, Public: []byte("secret")},
		"a short Ed25519 key":       {ID: "a", Alg: EdDSA, Public: ed25519.PublicKey(make([]byte, 16))},
		"an RSA key called ES256":   {ID: "a", Alg: ES256, Public: &rsaKey.PublicKey},
		"a private key of the type": {ID: "b", Alg: ES256, Public: ec.Public, Private: ed.Private},
	} {
		if err := k.Check(); err == nil {
			t.Errorf("%s: Check passed", name)
		}
	}
	if _, err := GenerateKey(HS256); err == nil {
		t.Error("GenerateKey(HS256) made a key")
	}
}

// BenchmarkVerify compares the cost of verifying an access token of each
// algorithm through Parse, with the verified-token cache (the same token
// presented again, as a client does for its token's lifetime) and without
// it (every call checks the signature and decodes the claims).
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []string{HS256, EdDSA, ES256} {
		for _, cached := range []bool{true, false} {
			name := alg + "/uncached"
			if cached {
				name = alg + "/cached"
			}
			b.Run(name, func(b *testing.B) {
				now := testT0
				tk := newTestTokens(b, &now)
				if alg != HS256 {
					set, err := NewKeySet(testKey(b, alg, "k1"))
					if err != nil {
						b.Fatal(err)
					}
					tk = &Tokens{Alg: alg, Keys: &StaticKeys{Set: set, Now: tk.Now}, Secret: testSecret, Now: tk.Now}
				}
				tk.uncached = !cached
				token, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tk.ParseContext(ctx, user, token); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// An RSA key is usable with RS256 only, of MinRSABits at least; GenerateKey
// makes one. Tokens neither accepts RS256 nor signs with an RS256 key, and
// a key source holding one under a kid does not make an RS256 token (or
// one of another alg under that kid) verify.
func TestRSAKeys(t *testing.T) {
	asymmetricKeys(t)
	rs := testKey(t, RS256, "rs")
	if pub := rs.Public.(*rsa.PublicKey); pub.N.BitLen() != MinRSABits {
		t.Fatalf("GenerateKey(RS256) made %d bits", pub.N.BitLen())
	}
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Key{ID: "r", Alg: RS256, Public: &rsaKey.PublicKey, Private: rsaKey}).Check(); err != nil {
		t.Errorf("an RSA 2048 key: %v", err)
	}
	for name, k := range map[string]*Key{
		"an RSA key of 1024 bits":     {ID: "r", Alg: RS256, Public: &small.PublicKey},
		"an RSA key called EdDSA":     {ID: "r", Alg: EdDSA, Public: &rsaKey.PublicKey},
		"an Ed25519 key called RS256": {ID: "r", Alg: RS256, Public: testKey(t, EdDSA, "e").Public},
		"a private key of another":    {ID: "r", Alg: RS256, Public: &rsaKey.PublicKey, Private: rs.Private},
	} {
		if err := k.Check(); err == nil {
			t.Errorf("%s: Check passed", name)
		}
	}
	if Asymmetric(RS256) || slices.Contains(Algorithms(), RS256) {
		t.Error("RS256 is taken for an algorithm of access tokens")
	}

	now := testT0
	ed := testKey(t, EdDSA, "ed")
	ed.ActiveFrom = now.Add(-time.Minute) // newer than rs: it signs
	set, err := NewKeySet(rs, ed)
	if err != nil {
		t.Fatal(err)
	}
	keys := &StaticKeys{Set: set, Now: func() time.Time { return now }}
	if err := (&Tokens{Alg: EdDSA, Keys: keys, Algorithms: []string{EdDSA, RS256}}).Validate(); err == nil {
		t.Error("Tokens accepted RS256 in its allow-list")
	}
	if err := (&Tokens{Alg: RS256, Keys: keys}).Validate(); err == nil {
		t.Error("Tokens issues RS256 tokens")
	}
	rsOnly, _ := NewKeySet(rs)
	signer := &Tokens{Alg: EdDSA, Keys: &StaticKeys{Set: rsOnly, Now: keys.Now}, Now: keys.Now}
	if token, _, err := signer.Issue(user, testID, testSID, 1, action.Web); err == nil {
		t.Errorf("an access token signed with the RSA key: %s", token)
	}
	tk := &Tokens{Alg: EdDSA, Keys: keys, Now: keys.Now}
	good, _, err := tk.Issue(user, testID, testSID, 1, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	_, payload := tokenforge.Decode(good)
	priv := rs.Private.(*rsa.PrivateKey)
	for name, token := range map[string]string{
		"RS256 under the RSA kid":   tokenforge.Forge(tokenforge.Header(RS256, "rs"), payload, tokenforge.RS256(priv)),
		"EdDSA under the RSA kid":   tokenforge.Forge(tokenforge.Header(EdDSA, "rs"), payload, tokenforge.RS256(priv)),
		"RS256 under the EdDSA kid": tokenforge.Forge(tokenforge.Header(RS256, "ed"), payload, tokenforge.RS256(priv)),
	} {
		if _, err := tk.Parse(user, token); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: Parse = %v", name, err)
		}
	}
}
