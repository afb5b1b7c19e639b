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

// TestOAuthLogout: RP-initiated logout ends the hint's OAuth session only
// and redirects an admin client to its registered URI with state; a
// dynamic client gets a page with a link instead; an unregistered URI or
// an invalid hint is a 400 page, never a redirect (no open redirect after
// logout).
func TestOAuthLogout(t *testing.T) {
	s := startOAuthServer(t)
	bye := []string{"https://app.example/bye"}
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, postLogout: bye})
	dyn, dynSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, postLogout: bye,
		source: models.OAuthClientDynamic})
	b := s.browser()
	u := loginUser(t, b)
	tok := s.signIn(t, b, u, clientID, secret)
	hint := tok["id_token"].(string)
	logout := func(params url.Values) (*http.Response, string) {
		return b.get(t, s.issuer+"/oauth2/logout?"+params.Encode())
	}
	for name, params := range map[string]url.Values{
		"unregistered uri": {"id_token_hint": {hint}, "post_logout_redirect_uri": {"https://evil.example/bye"}},
		"access token":     {"id_token_hint": {tok["access_token"].(string)}, "post_logout_redirect_uri": bye},
		"no hint":          {"post_logout_redirect_uri": bye},
		"forged hint":      {"id_token_hint": {hint[:len(hint)-4] + "AAAA"}, "post_logout_redirect_uri": bye},
	} {
		if res, _ := logout(params); res.StatusCode != 400 || res.Header.Get("Location") != "" {
			t.Errorf("%s: %d Location %q", name, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 200 {
		t.Fatalf("userinfo after refused logouts: %d", st)
	}
	res, _ := logout(url.Values{"id_token_hint": {hint}, "post_logout_redirect_uri": bye, "state": {"s9"}})
	if res.StatusCode != 302 || res.Header.Get("Location") != "https://app.example/bye?state=s9" {
		t.Fatalf("logout: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo after logout: %d", st)
	}
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")

	tok = s.signIn(t, b, u, dyn, dynSecret)
	res, body := logout(url.Values{"id_token_hint": {tok["id_token"].(string)}, "post_logout_redirect_uri": bye})
	if res.StatusCode != 200 || res.Header.Get("Location") != "" || !strings.Contains(body, `href="https://app.example/bye"`) {
		t.Fatalf("a dynamic client's logout: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo after a dynamic client's logout: %d", st)
	}
}
