package accesstoken

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/actionkit/actionkit/auth"
)

// TestResourceURI: resources compare in their WHATWG URL serialization.
func TestResourceURI(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.example.com":          "https://api.example.com/",
		"HTTPS://API.Example.com:443/":     "https://api.example.com/",
		"http://localhost:80/mcp":          "http://localhost/mcp",
		"http://127.0.0.1:8080/a/../mcp":   "http://127.0.0.1:8080/mcp",
		"https://[::1]:8443/mcp":           "https://[::1]:8443/mcp",
		"https://api.example.com/mcp?x=1":  "https://api.example.com/mcp?x=1",
		"https://api.example.com/mcp#frag": "",
		"https://user@api.example.com/":    "",
		"ftp://api.example.com/":           "",
		"/mcp":                             "",
		"mailto:a@example.com":             "",
	} {
		got, ok := ResourceURI(raw)
		if got != want || ok != (want != "") {
			t.Errorf("ResourceURI(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}

// TestVerifyClaims: the claims RFC 9068 requires, and iat not in the
// future.
func TestVerifyClaims(t *testing.T) {
	key, err := auth.GenerateKey(auth.ES256)
	if err != nil {
		t.Fatal(err)
	}
	key.ID = "k"
	set, err := auth.NewKeySet(key)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(Config{Issuer: "https://id.example.com", Keys: &auth.StaticKeys{Set: set}})
	if err != nil {
		t.Fatal(err)
	}
	sign := func(edit func(jwt.MapClaims)) string {
		now := time.Now()
		c := jwt.MapClaims{"iss": "https://id.example.com", "sub": "u", "aud": "https://api.example.com", "client_id": "c",
			"scope": "a b", "exp": now.Add(time.Minute).Unix(), "iat": now.Unix(), "jti": "j", "sid": "s"}
		edit(c)
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
		tok.Header["typ"], tok.Header["kid"] = "at+jwt", "k"
		s, err := tok.SignedString(key.Private)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tok, err := v.Verify(context.Background(), sign(func(jwt.MapClaims) {}), "https://API.example.com")
	if err != nil || tok.Subject != "u" || tok.ClientID != "c" || tok.SessionID != "s" || !tok.HasScopes([]string{"b", "a"}) || tok.HasScopes([]string{"c"}) {
		t.Fatalf("%+v %v", tok, err)
	}
	for name, edit := range map[string]func(jwt.MapClaims){
		"no sub":        func(c jwt.MapClaims) { delete(c, "sub") },
		"no client_id":  func(c jwt.MapClaims) { delete(c, "client_id") },
		"no iat":        func(c jwt.MapClaims) { delete(c, "iat") },
		"future iat":    func(c jwt.MapClaims) { c["iat"] = time.Now().Add(time.Hour).Unix() },
		"no aud":        func(c jwt.MapClaims) { delete(c, "aud") },
		"a path in aud": func(c jwt.MapClaims) { c["aud"] = "https://api.example.com/mcp" },
	} {
		if _, err := v.Verify(context.Background(), sign(edit), "https://api.example.com"); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := New(Config{Issuer: "x", Keys: &auth.StaticKeys{Set: set}, Algorithms: []string{auth.HS256}}); err == nil {
		t.Error("HS256 was accepted")
	}
}

// switchKeys is a key source whose key can be unpublished.
type switchKeys struct {
	key       *auth.Key
	withdrawn atomic.Bool
}

func (s *switchKeys) VerifyKey(_ context.Context, kid string) (*auth.Key, error) {
	if s.withdrawn.Load() || kid != s.key.ID {
		return nil, auth.ErrUnknownKey
	}
	return s.key, nil
}

func (s *switchKeys) SigningKey() (*auth.Key, error) { return nil, auth.ErrNoSigningKey }

// TestVerifyCache: a token verified before is answered from the cache
// (the very same Token comes back), yet the checks that may change are
// repeated: the resource, expiry and the key still being published.
func TestVerifyCache(t *testing.T) {
	key, err := auth.GenerateKey(auth.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	key.ID = "k"
	keys := &switchKeys{key: key}
	now := time.Now()
	v, err := New(Config{Issuer: "https://id.example.com", Keys: keys, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"iss": "https://id.example.com", "sub": "u",
		"aud": []string{"https://a.example.com", "https://b.example.com"}, "client_id": "c", "scope": "s",
		"exp": now.Add(time.Minute).Unix(), "iat": now.Unix()})
	tok.Header["typ"], tok.Header["kid"] = "at+jwt", "k"
	token, err := tok.SignedString(key.Private)
	if err != nil {
		t.Fatal(err)
	}
	first, err := v.Verify(context.Background(), token, "https://a.example.com")
	if err != nil {
		t.Fatal(err)
	}
	again, err := v.Verify(context.Background(), token, "https://b.example.com")
	if err != nil || again != first {
		t.Fatalf("cached verification: %v %v", again, err)
	}
	if _, err := v.Verify(context.Background(), token, "https://c.example.com"); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a cached token for another resource: %v", err)
	}
	keys.withdrawn.Store(true)
	if _, err := v.Verify(context.Background(), token, "https://a.example.com"); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a cached token of a withdrawn key: %v", err)
	}
	keys.withdrawn.Store(false)
	now = now.Add(time.Minute + auth.ClockSkew)
	if _, err := v.Verify(context.Background(), token, "https://a.example.com"); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a cached token past its expiry: %v", err)
	}
}
