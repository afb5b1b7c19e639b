package main

import (
	"net/http"
	"net/url"
	"testing"
)

// mcpRedirect is the redirect URI of the test clients of the resource
// tests.
const mcpRedirect = "http://127.0.0.1/callback"

// grant is an access token of a code flow and who holds it.
type grant struct {
	clientID string
	user     *registered
	browser  *browser
	token    string
	scope    string
}

// oauthToken runs a real code flow with PKCE for a new public client and
// a new user, asking for scope and resource, and returns the access token.
func (s *oauthServer) oauthToken(t *testing.T, scope, resource string) *grant {
	t.Helper()
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{mcpRedirect}, method: "none"})
	b := s.browser()
	u := loginUser(t, b)
	return s.oauthTokenFor(t, b, u, clientID, scope, resource)
}

// oauthTokenFor is oauthToken for user u (signed in in b) and clientID.
func (s *oauthServer) oauthTokenFor(t *testing.T, b *browser, u *registered, clientID, scope, resource string) *grant {
	t.Helper()
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, mcpRedirect, challenge, "scope", scope, "resource", resource))
	st, out := s.tokenCall(t, clientID, "", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {mcpRedirect}, "code_verifier": {verifier}})
	if st != http.StatusOK {
		t.Fatalf("exchange: %d %v", st, out)
	}
	tok, _ := out["access_token"].(string)
	sc, _ := out["scope"].(string)
	return &grant{clientID: clientID, user: u, browser: b, token: tok, scope: sc}
}

// bearer is the Authorization header of the grant's access token.
func (g *grant) bearer() []string { return []string{"Authorization", "Bearer " + g.token} }
