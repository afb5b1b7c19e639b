package main

import (
	"crypto"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/actionkit/actionkit/signingkeys"
)

// idTokenJWK returns the one RS256 JWK of a key set (publishedKeys).
func idTokenJWK(t testing.TB, keys map[string]map[string]any) map[string]any {
	t.Helper()
	var found map[string]any
	for _, jwk := range keys {
		if jwk["alg"] == "RS256" {
			if found != nil {
				t.Fatalf("two RS256 keys published: %v", keys)
			}
			found = jwk
		}
	}
	if found == nil {
		t.Fatalf("no RS256 key published: %v", keys)
	}
	return found
}

// serverIDTokenKey returns the ID-token key of s with its private part,
// as another instance on its database and data key loads it.
func serverIDTokenKey(t testing.TB, s *testServer) *auth.Key {
	t.Helper()
	dk, err := datakey.Parse(s.env["DATA_ENCRYPTION_KEY"])
	if err != nil {
		t.Fatal(err)
	}
	r, err := signingkeys.New(signingkeys.Config{
		DB: s.db(), DataKey: dk, Alg: s.env["ACCESS_TOKEN_ALG"], Rotation: 30 * 24 * time.Hour, TokenTTL: 15 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	k, err := r.IDTokenKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// With EdDSA the key set also serves the RSA 2048 ID-token key (kty RSA,
// alg RS256, use sig, kid its RFC 7638 thumbprint, nothing private), and
// go-jose verifies against that JWK an RS256 signature made with the key;
// an access token signed by that key is refused, whatever its header says.
func TestJWKSPublishesTheIDTokenKey(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "ACCESS_TOKEN_ALG=EdDSA"), "api")
	c := s.client()
	u := register(t, c, "web")
	keys := publishedKeys(t, c)
	if len(keys) != 2 {
		t.Fatalf("published %v, want the EdDSA key and the RS256 key", keys)
	}
	jwk := idTokenJWK(t, keys)
	if jwk["kty"] != "RSA" || jwk["use"] != "sig" || jwk["e"] != "AQAB" || len(jwk) != 6 {
		t.Errorf("JWK = %v", jwk)
	}
	raw, _ := json.Marshal(jwk)
	var pub jose.JSONWebKey
	if err := pub.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	thumb, _ := pub.Thumbprint(crypto.SHA256)
	if rsaPub, ok := pub.Key.(*rsa.PublicKey); !ok || rsaPub.N.BitLen() != 2048 || !pub.IsPublic() ||
		jwk["kid"] != base64.RawURLEncoding.EncodeToString(thumb) {
		t.Fatalf("the JWK is not a public RSA 2048 key named by its thumbprint: %v", jwk)
	}

	k := serverIDTokenKey(t, s)
	if k.ID != jwk["kid"] || k.Alg != auth.RS256 {
		t.Fatalf("IDTokenKey %s %s, published %v", k.ID, k.Alg, jwk["kid"])
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: k.Private},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", k.ID))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := signer.Sign([]byte(`{"sub":"someone"}`))
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := signed.CompactSerialize()
	parsed, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	if payload, err := parsed.Verify(&pub); err != nil || string(payload) != `{"sub":"someone"}` {
		t.Fatalf("go-jose Verify with the published JWK = %q, %v", payload, err)
	}

	_, access := tokenKid(u.token)
	priv := k.Private.(*rsa.PrivateKey)
	claims := freshClaims(t, u.token)
	for name, token := range map[string]string{
		"RS256 under the RSA kid":    tokenforge.Forge(tokenforge.Header("RS256", k.ID), claims, tokenforge.RS256(priv)),
		"RS256 under the EdDSA kid":  tokenforge.Forge(tokenforge.Header("RS256", access), claims, tokenforge.RS256(priv)),
		"EdDSA under the RSA kid":    tokenforge.Forge(tokenforge.Header("EdDSA", k.ID), claims, tokenforge.RS256(priv)),
		"RS256 without kid":          tokenforge.Forge(tokenforge.Header("RS256", ""), claims, tokenforge.RS256(priv)),
		"HS256 with the RSA modulus": tokenforge.Forge(tokenforge.Header("HS256", ""), claims, tokenforge.HMAC(priv.N.Bytes())),
	} {
		r := c.call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+token)
		if r.Status != 401 || r.Body["error"] != "UNAUTHORIZED" {
			t.Errorf("%s: got %d %s", name, r.Status, r.Raw)
		}
	}
	u.read(t).want(t, 200, "")
}

// With the OAuth provider on, a retired key stays published until the
// longer of ACCESS_TOKEN_EXPIRES_IN and OAUTH_ACCESS_TOKEN_EXPIRES_IN has
// passed: a key retired an hour ago still verifies the 2 h ID tokens and
// OAuth access tokens it signed (without the provider, TestEdDSAAccessTokens
// shows it unpublished).
func TestRetiredKeyPublishedForOAuthTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "ACCESS_TOKEN_ALG=EdDSA", "OAUTH_PROVIDER=true", "PUBLIC_URL=http://127.0.0.1:9",
		"OAUTH_ACCESS_TOKEN_EXPIRES_IN=2h", "SIGNING_KEY_RELOAD=100ms"), "api")
	c := s.client()
	old := retiredKey(t, s, time.Hour)
	poll.Until(t, 10*time.Second, "the key retired an hour ago published", func() bool {
		_, ok := publishedKeys(t, c)[old.ID]
		return ok
	})
}
