package main

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/rptest"
	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/actionkit/actionkit/models"
)

// TestOAuthWithOpenIDClient: the npm openid-client (internal/rptest) signs
// a user in through the real server: discovery, an authorization request
// with PKCE, state and nonce built by the library, the interaction driven
// through the API with the browser's cookie, the callback (the library
// checks iss in the authorization response, exchanges the code and
// validates the ID token: signature from the JWKS, iss, aud, nonce,
// at_hash), userinfo, a refresh with a new ID token, introspection (a
// confidential client's live tokens with every §19 member; a public client
// refused), revocation (the session ends: userinfo refuses, the token is
// inactive) and RP-initiated logout (the end-session URL built by the
// library and followed: back to the registered URI with state, the session
// ended). Once with a confidential client whose ID tokens are RS256 (the
// server's RSA ID-token key), once with one authenticating with
// client_secret_post and ACCESS_TOKEN_ALG ID tokens, once with a public
// client. A response whose iss is not the issuer's is refused by
// the library (mix-up defence), and a code presented twice is the
// provider's invalid_grant. A dynamic client learns nothing of another
// client's token by introspection, and its logout is a page with a link.
func TestOAuthWithOpenIDClient(t *testing.T) {
	s := startOAuthServer(t)
	const redirect = "http://127.0.0.1:9/cb"
	cases := []struct {
		name, auth, alg string
	}{
		{"confidential RS256", "basic", "RS256"},
		{"confidential client_secret_post EdDSA", "post", "EdDSA"},
		{"public EdDSA", "none", "EdDSA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}, postLogout: []string{rpBye}}
			switch c.auth {
			case "none":
				spec.method = "none"
			case "post":
				spec.method = "client_secret_post"
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

			// Introspection: a confidential client sees its live tokens
			// with every §19 member; a public client may not introspect.
			live, liveRefresh := rptest.Str(ref, "tokens", "access_token"), rptest.Str(ref, "tokens", "refresh_token")
			if c.auth == "none" {
				_, err := rp.Call("introspect", map[string]any{"token": live})
				var rpErr *rptest.Error
				if !errors.As(err, &rpErr) || rpErr.Status != 401 {
					t.Errorf("a public client's introspection: %v, want 401", err)
				}
			} else {
				in := introspectWith(t, rp, live)
				if in["active"] != true || in["scope"] != "openid email profile offline_access" || in["client_id"] != clientID ||
					in["sub"] != u.id || in["aud"] != s.issuer || in["iss"] != s.issuer || in["token_type"] != "Bearer" ||
					in["sid"] == nil || in["sid"] != jwtPayload(idToken)["sid"] || in["exp"] == nil || in["iat"] == nil {
					t.Errorf("introspection of a live access token: %v", in)
				}
				if in := introspectWith(t, rp, liveRefresh); in["active"] != true || in["token_type"] != "refresh_token" {
					t.Errorf("introspection of a live refresh token: %v", in)
				}
			}
			// Revoking the refresh token ends the session: userinfo
			// refuses its access token, which is no longer active.
			if _, err := rp.Call("revoke", map[string]any{"token": liveRefresh}); err != nil {
				t.Fatalf("revoke: %v", err)
			}
			if _, err := rp.Call("userinfo", map[string]any{"accessToken": live, "sub": u.id}); err == nil {
				t.Error("userinfo answered after revocation")
			}
			if c.auth != "none" {
				if in := introspectWith(t, rp, live); len(in) != 1 || in["active"] != false {
					t.Errorf("introspection after revocation: %v", in)
				}
			}

			_, err = rp.Call("callback", map[string]any{"url": callback})
			var rpErr *rptest.Error
			if !errors.As(err, &rpErr) || rpErr.OAuthError != "invalid_grant" {
				t.Errorf("a code presented twice: %v, want invalid_grant", err)
			}

			// RP-initiated logout: the library builds the end-session URL
			// from the ID token; the browser follows it back to the
			// registered URI with state, and that OAuth session ends.
			got = rpSignIn(t, s, b, u, rp, redirect)
			res, body := b.get(t, rpLogoutURL(t, rp, rptest.Str(got, "tokens", "id_token"), "lo-1"))
			if res.StatusCode != http.StatusFound || res.Header.Get("Location") != rpBye+"?state=lo-1" {
				t.Fatalf("logout: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
			}
			if _, err := rp.Call("userinfo", map[string]any{"accessToken": rptest.Str(got, "tokens", "access_token"), "sub": u.id}); err == nil {
				t.Error("userinfo answered after logout")
			}
			b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")
		})
	}

	// A dynamic client through openid-client: it learns nothing of an
	// admin client's live token by introspection, and its logout is a
	// page with a link to the registered URI, never a redirect.
	t.Run("dynamic client", func(t *testing.T) {
		adminID, adminSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}})
		dynID, dynSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}, postLogout: []string{rpBye},
			source: models.OAuthClientDynamic})
		admin := rptest.Start(t, rptest.Client{Issuer: s.issuer, ClientID: adminID, Secret: adminSecret})
		dyn := rptest.Start(t, rptest.Client{Issuer: s.issuer, ClientID: dynID, Secret: dynSecret, IDTokenAlg: "EdDSA"})
		b := s.browser()
		u := loginUser(t, b)
		adminTokens := rpSignIn(t, s, b, u, admin, redirect)
		live := rptest.Str(adminTokens, "tokens", "access_token")
		if in := introspectWith(t, dyn, live); len(in) != 1 || in["active"] != false {
			t.Errorf("a dynamic client introspecting an admin client's token: %v", in)
		}
		if in := introspectWith(t, admin, live); in["active"] != true {
			t.Errorf("the admin client introspecting its own token: %v", in)
		}
		got := rpSignIn(t, s, b, u, dyn, redirect)
		res, body := b.get(t, rpLogoutURL(t, dyn, rptest.Str(got, "tokens", "id_token"), "lo-2"))
		if res.StatusCode != http.StatusOK || res.Header.Get("Location") != "" || !strings.Contains(body, `href="`+rpBye) {
			t.Fatalf("a dynamic client's logout: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
		}
		if _, err := dyn.Call("userinfo", map[string]any{"accessToken": rptest.Str(got, "tokens", "access_token"), "sub": u.id}); err == nil {
			t.Error("userinfo answered after a dynamic client's logout")
		}
		if _, err := admin.Call("userinfo", map[string]any{"accessToken": live, "sub": u.id}); err != nil {
			t.Errorf("the admin client's session ended with the dynamic client's logout: %v", err)
		}
	})
}

// rpBye is the post-logout redirect URI of the openid-client tests.
const rpBye = "https://app.example/bye"

// rpSignIn signs u in through rp (authorization URL, approval, callback)
// and returns the callback's answer: the tokens and the ID token's claims.
func rpSignIn(t *testing.T, s *oauthServer, b *browser, u *registered, rp *rptest.RP, redirect string) map[string]any {
	t.Helper()
	got, err := rp.Call("callback", map[string]any{"url": s.interact(t, b, u, rp, redirect)})
	if err != nil {
		t.Fatalf("callback: %v", err)
	}
	return got
}

// introspectWith has rp introspect token and returns the answer.
func introspectWith(t *testing.T, rp *rptest.RP, token string) map[string]any {
	t.Helper()
	got, err := rp.Call("introspect", map[string]any{"token": token})
	if err != nil {
		t.Fatalf("introspect: %v", err)
	}
	in, _ := got["introspection"].(map[string]any)
	return in
}

// rpLogoutURL has rp build the end-session URL for the ID token, back to
// rpBye with state.
func rpLogoutURL(t *testing.T, rp *rptest.RP, idToken, state string) string {
	t.Helper()
	got, err := rp.Call("logout", map[string]any{"idTokenHint": idToken, "postLogoutRedirectUri": rpBye, "state": state})
	if err != nil {
		t.Fatalf("logout: %v", err)
	}
	return rptest.Str(got, "url")
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
