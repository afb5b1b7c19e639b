package main

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/rptest"
	"github.com/actionkit/actionkit/internal/tokenforge"
)

// TestOAuthWithOpenIDClient: the npm openid-client (internal/rptest) signs
// a user in through the real server: discovery, an authorization request
// with PKCE, state and nonce built by the library, the interaction driven
// through the API with the browser's cookie, the callback (the library
// checks iss in the authorization response, exchanges the code and
// validates the ID token: signature from the JWKS, iss, aud, nonce,
// at_hash), userinfo, and a refresh with a new ID token. Once with a
// confidential client whose ID tokens are RS256 (the server's RSA ID-token
// key), once with a public client and ACCESS_TOKEN_ALG. A response whose
// iss is not the issuer's is refused by the library (mix-up defence), and
// a code presented twice is the provider's invalid_grant.
func TestOAuthWithOpenIDClient(t *testing.T) {
	s := startOAuthServer(t)
	const redirect = "http://127.0.0.1:9/cb"
	cases := []struct {
		name, auth, alg string
	}{
		{"confidential RS256", "basic", "RS256"},
		{"public EdDSA", "none", "EdDSA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}}
			if c.auth == "none" {
				spec.method = "none"
			}
			clientID, secret := s.addClient(t, spec)
			if _, err := s.db.ExecContext(t.Context(), `UPDATE oauth_clients SET id_token_alg = $2 WHERE client_id = $1`, clientID, c.alg); err != nil {
				t.Fatal(err)
			}
			rp := rptest.Start(t, rptest.Client{Issuer: s.issuer, ClientID: clientID, Secret: secret, Auth: c.auth, IDTokenAlg: c.alg})
			b := s.browser()
			u := loginUser(t, b)

			// A response with another iss is refused before any exchange.
			callback := s.interact(t, b, u, rp, redirect)
			forged, _ := url.Parse(callback)
			q := forged.Query()
			q.Set("iss", "https://attacker.example")
			forged.RawQuery = q.Encode()
			if _, err := rp.Call("callback", map[string]any{"url": forged.String()}); err == nil {
				t.Fatal("the library accepted an authorization response with another iss")
			}

			callback = s.interact(t, b, u, rp, redirect)
			got, err := rp.Call("callback", map[string]any{"url": callback})
			if err != nil {
				t.Fatalf("callback: %v", err)
			}
			if rptest.Str(got, "claims", "sub") != u.id || rptest.Str(got, "claims", "email") != u.email ||
				rptest.Str(got, "claims", "iss") != s.issuer || rptest.Str(got, "claims", "aud") != clientID {
				t.Fatalf("ID token claims %v", got["claims"])
			}
			idToken := rptest.Str(got, "tokens", "id_token")
			if h, _ := tokenforge.Decode(idToken); h["alg"] != c.alg || h["typ"] != "JWT" {
				t.Errorf("the ID token's header %v, want alg %s", h, c.alg)
			}
			access, refresh := rptest.Str(got, "tokens", "access_token"), rptest.Str(got, "tokens", "refresh_token")
			if access == "" || refresh == "" {
				t.Fatalf("tokens %v", got["tokens"])
			}
			info, err := rp.Call("userinfo", map[string]any{"accessToken": access, "sub": u.id})
			if err != nil || rptest.Str(info, "userinfo", "email") != u.email {
				t.Fatalf("userinfo %v: %v", info, err)
			}
			ref, err := rp.Call("refresh", map[string]any{"refreshToken": refresh})
			if err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if nr := rptest.Str(ref, "tokens", "refresh_token"); nr == "" || nr == refresh || rptest.Str(ref, "claims", "sub") != u.id {
				t.Errorf("refresh answered %v", ref)
			}
			if _, err := rp.Call("userinfo", map[string]any{"accessToken": rptest.Str(ref, "tokens", "access_token"), "sub": u.id}); err != nil {
				t.Errorf("userinfo with the refreshed token: %v", err)
			}

			_, err = rp.Call("callback", map[string]any{"url": callback})
			var rpErr *rptest.Error
			if !errors.As(err, &rpErr) || rpErr.OAuthError != "invalid_grant" {
				t.Errorf("a code presented twice: %v, want invalid_grant", err)
			}
		})
	}
}

// interact has rp build an authorization URL, sends the browser there, and
// approves the request as u through the interaction API with the
// browser's oauth-request cookie; it returns where the browser is sent
// back (the callback URL the library reads).
func (s *oauthServer) interact(t *testing.T, b *browser, u *registered, rp *rptest.RP, redirect string) string {
	t.Helper()
	auth, err := rp.Call("authorize", map[string]any{"redirectUri": redirect, "scope": "openid email profile offline_access"})
	if err != nil {
		t.Fatal(err)
	}
	authURL := rptest.Str(auth, "url")
	if !strings.HasPrefix(authURL, s.issuer+"/oauth2/authorize?") || !strings.Contains(authURL, "code_challenge_method=S256") {
		t.Fatalf("authorization URL %s", authURL)
	}
	res, body := b.get(t, authURL)
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.StatusCode, body)
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	id := loc.Query().Get("oauth_request")
	r := b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": id}, u.auth()...)
	r.want(t, 200, "")
	return r.str("redirectTo")
}
