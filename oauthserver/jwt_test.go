package oauthserver

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// TestTokensNeverCross: an OAuth access token is refused where a
// first-party jwt-user token is expected (even when TOKEN_ISSUER equals
// PUBLIC_URL and both use one key), and a first-party token or an ID
// token is refused where an OAuth access token is.
func TestTokensNeverCross(t *testing.T) {
	k, err := auth.GenerateKey(auth.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	k.ID = "k1"
	set, err := auth.NewKeySet(k)
	if err != nil {
		t.Fatal(err)
	}
	keys := &auth.StaticKeys{Set: set}
	const issuer = "https://id.example"
	first := &auth.Tokens{Alg: auth.EdDSA, Keys: keys, Issuer: issuer, TTL: time.Minute}
	s := &Server{Config: Config{Issuer: issuer, AccessTokenTTL: time.Minute, AccessTokenAlg: auth.EdDSA}, Keys: keys}
	user, sid := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	oauthToken, _, err := s.signAccessToken(accessToken{Subject: user.String(), Audience: issuer, ClientID: "ak_x",
		Scopes: []string{"openid"}, Session: sid, AuthTime: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Parse(accounts.Users.Type, oauthToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("an OAuth access token parsed as a first-party one: %v", err)
	}
	if _, err := s.verifyAccessToken(context.Background(), oauthToken); err != nil {
		t.Fatalf("the OAuth access token: %v", err)
	}
	firstParty, _, err := first.Issue(accounts.Users.Type, user, sid, 0, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.verifyAccessToken(context.Background(), firstParty); !errors.Is(err, errInvalidToken) {
		t.Fatalf("a first-party token verified as an OAuth one: %v", err)
	}
	client := &models.OAuthClient{ClientID: "ak_x", IDTokenAlg: auth.EdDSA}
	idTok, err := s.signIDToken(client, idToken{Account: &models.Account{ID: user}, ClientID: "ak_x", Session: sid,
		AuthTime: time.Now(), Scopes: []string{"openid"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.verifyAccessToken(context.Background(), idTok); !errors.Is(err, errInvalidToken) {
		t.Fatalf("an ID token verified as an access token: %v", err)
	}
}

// rsaKeys is a test IDTokenKeys: one RSA 2048 key.
type rsaKeys struct{ k *auth.Key }

func (r rsaKeys) IDTokenKey() (*auth.Key, error) { return r.k, nil }

// TestRS256IDTokens: a client whose id_token_alg is RS256 gets its ID
// token signed with the ID-token key (never the access-token key), with
// its kid, and a client of another algorithm without a key is an error.
func TestRS256IDTokens(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	idKey := &auth.Key{ID: "rsa1", Alg: RS256, Public: &priv.PublicKey, Private: priv}
	at, err := auth.GenerateKey(auth.ES256)
	if err != nil {
		t.Fatal(err)
	}
	at.ID = "ec1"
	set, err := auth.NewKeySet(at)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Config: Config{Issuer: "https://id.example", AccessTokenTTL: time.Minute, AccessTokenAlg: auth.ES256},
		Keys: &auth.StaticKeys{Set: set}, IDKeys: rsaKeys{idKey}}
	user := uuid.Must(uuid.NewV7())
	tok, err := s.signIDToken(&models.OAuthClient{ClientID: "ak_r", IDTokenAlg: RS256}, idToken{Account: &models.Account{ID: user},
		ClientID: "ak_r", Session: user, AuthTime: time.Now(), Scopes: []string{"openid"}, AccessToken: "x"})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return &priv.PublicKey, nil }, jwt.WithValidMethods([]string{RS256}))
	if err != nil || parsed.Header["kid"] != "rsa1" || parsed.Header["typ"] != "JWT" {
		t.Fatalf("RS256 ID token: %v %v", parsed.Header, err)
	}
	s.IDKeys = nil
	if _, err := s.signIDToken(&models.OAuthClient{ClientID: "ak_r", IDTokenAlg: RS256}, idToken{Account: &models.Account{ID: user},
		ClientID: "ak_r", Session: user, AuthTime: time.Now()}); err == nil {
		t.Fatal("an RS256 ID token without an ID-token key")
	}
}
