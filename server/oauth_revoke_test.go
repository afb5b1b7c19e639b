package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/models"
)

// protocolPost posts form to path with Basic credentials of clientID.
func (s *oauthServer) protocolPost(t *testing.T, path, clientID, secret string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.issuer+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	} else {
		form.Set("client_id", clientID)
		req, _ = http.NewRequest(http.MethodPost, s.issuer+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// signIn runs the code flow for client and returns the token answer.
func (s *oauthServer) signIn(t *testing.T, b *browser, u *registered, clientID, secret string) map[string]any {
	t.Helper()
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge, "scope", "openid"))
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, out)
	}
	return out
}

// TestOAuthRevoke: revoking an access or a refresh token of the client
// ends its whole OAuth session; another client's token, an unknown token
// and a garbage one answer 200 and change nothing; a wrong secret is 401.
func TestOAuthRevoke(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	otherID, otherSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	for _, kind := range []string{"access_token", "refresh_token"} {
		tok := s.signIn(t, b, u, clientID, secret)
		for _, junk := range []string{tok[kind].(string), strings.Repeat("ab", 32), "garbage"} {
			if st, _ := s.protocolPost(t, "/oauth2/revoke", otherID, otherSecret, url.Values{"token": {junk}}); st != 200 {
				t.Fatalf("revoke by another client: %d", st)
			}
		}
		if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 200 {
			t.Fatalf("%s revoked by another client: userinfo %d", kind, st)
		}
		if st, out := s.protocolPost(t, "/oauth2/revoke", clientID, "wrong", url.Values{"token": {tok[kind].(string)}}); st != 401 || out["error"] != "invalid_client" {
			t.Fatalf("a wrong secret: %d %v", st, out)
		}
		if st, _ := s.protocolPost(t, "/oauth2/revoke", clientID, secret, url.Values{"token": {tok[kind].(string)}}); st != 200 {
			t.Fatalf("revoke: %d", st)
		}
		if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 401 {
			t.Fatalf("%s revoked: userinfo %d", kind, st)
		}
		if st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}}); st != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("%s revoked: refresh %d %v", kind, st, out)
		}
	}
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")
}

// TestOAuthIntrospect: a live token of the caller is active with its
// claims; an ended session's, an unknown or a rotated token is
// {active:false}; another client's token is inactive for a dynamic
// client and active for an admin one (a resource server); a public
// client may not introspect.
func TestOAuthIntrospect(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	rs, rsSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://rs.example/cb"}})
	dyn, dynSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://dyn.example/cb"}, source: models.OAuthClientDynamic})
	public, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, method: "none"})
	b := s.browser()
	u := loginUser(t, b)
	tok := s.signIn(t, b, u, clientID, secret)
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	introspect := func(id, sec, token string) map[string]any {
		t.Helper()
		st, out := s.protocolPost(t, "/oauth2/introspect", id, sec, url.Values{"token": {token}})
		if st != 200 {
			t.Fatalf("introspect: %d %v", st, out)
		}
		return out
	}
	out := introspect(clientID, secret, access)
	if out["active"] != true || out["client_id"] != clientID || out["sub"] != u.id || out["scope"] != "openid" ||
		out["aud"] != s.issuer || out["iss"] != s.issuer || out["token_type"] != "Bearer" || out["sid"] == nil || out["exp"] == nil {
		t.Fatalf("introspect access token: %v", out)
	}
	if out := introspect(clientID, secret, refresh); out["active"] != true || out["token_type"] != "refresh_token" || out["sid"] == nil {
		t.Fatalf("introspect refresh token: %v", out)
	}
	if out := introspect(rs, rsSecret, access); out["active"] != true {
		t.Fatalf("an admin client introspecting another's token: %v", out)
	}
	if out := introspect(dyn, dynSecret, access); len(out) != 1 || out["active"] != false {
		t.Fatalf("a dynamic client introspecting another's token: %v", out)
	}
	if out := introspect(clientID, secret, strings.Repeat("ab", 32)); len(out) != 1 || out["active"] != false {
		t.Fatalf("an unknown token: %v", out)
	}
	if st, out := s.protocolPost(t, "/oauth2/introspect", public, "", url.Values{"token": {access}}); st != 401 || out["error"] != "invalid_client" {
		t.Fatalf("a public client: %d %v", st, out)
	}
	if st, _ := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}); st != 200 {
		t.Fatalf("refresh: %d", st)
	}
	if out := introspect(clientID, secret, refresh); out["active"] != false {
		t.Fatalf("a rotated refresh token: %v", out)
	}
	b.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	if out := introspect(clientID, secret, access); out["active"] != false {
		t.Fatalf("an ended session's access token: %v", out)
	}
}
