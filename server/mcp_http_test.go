package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/internal/openapitest"
)

// TestScopedActionsOverHTTP: an access token of a real code flow calls
// the actions its scope covers, for the resource PUBLIC_URL only; a
// missing scope is the step-up challenge, an action without scopes
// refuses it, and the MCP resource's token is refused over HTTP.
func TestScopedActionsOverHTTP(t *testing.T) {
	s := startOAuthServer(t)
	meta := s.issuer + "/.well-known/oauth-protected-resource"
	g := s.oauthToken(t, "account:read", s.issuer)
	c := g.browser.client

	r := c.call(http.MethodPost, "/v1/users/read", nil, g.bearer()...).want(t, http.StatusOK, "")
	if r.obj("user")["email"] != g.user.email {
		t.Fatalf("read answers %s", r.Raw)
	}

	r = c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "t"}, g.bearer()...).
		want(t, http.StatusForbidden, "FORBIDDEN_INSUFFICIENT_SCOPE")
	want := `Bearer error="insufficient_scope", scope="account:read posts:write", resource_metadata="` + meta + `"`
	if got := r.Header.Get("WWW-Authenticate"); got != want {
		t.Fatalf("challenge %q, want %q", got, want)
	}

	// An action that declares no scopes never accepts an OAuth token.
	c.call(http.MethodPost, "/v1/users/sessions", nil, g.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")

	// No token at all: the challenge names the metadata.
	r = c.call(http.MethodPost, "/v1/users/read", nil).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer resource_metadata="`+meta+`"` {
		t.Fatalf("challenge %q", got)
	}

	// A token for the MCP resource is not one for PUBLIC_URL.
	m := s.oauthTokenFor(t, g.browser, g.user, g.clientID, "account:read", s.issuer+"/mcp")
	r = c.call(http.MethodPost, "/v1/users/read", nil, m.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer resource_metadata="`+meta+`"` {
		t.Fatalf("challenge %q", got)
	}

	// And a token for PUBLIC_URL is not one for the MCP resource.
	r = c.call(http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, g.bearer()...)
	if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+meta+`/mcp"` {
		t.Fatalf("/mcp with the token of PUBLIC_URL: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}

	// The first-party token works on a scoped action as before.
	c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "t"}, g.user.auth()...).want(t, http.StatusCreated, "")
}

// TestScopedTokensEndAtOnce: a revoked app's token and, after a logout
// everywhere, every OAuth token of the user are refused at the next
// request, before they expire.
func TestScopedTokensEndAtOnce(t *testing.T) {
	s := startOAuthServer(t)
	g := s.oauthToken(t, "account:read posts:write", s.issuer)
	c := g.browser.client
	c.call(http.MethodPost, "/v1/users/read", nil, g.bearer()...).want(t, http.StatusOK, "")
	c.call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": g.clientID}, g.user.auth()...).want(t, http.StatusOK, "")
	c.call(http.MethodPost, "/v1/users/read", nil, g.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")

	h := s.oauthTokenFor(t, g.browser, g.user, g.clientID, "posts:write", s.issuer)
	c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "t"}, h.bearer()...).want(t, http.StatusCreated, "")
	c.call(http.MethodPost, "/v1/users/logoutall", nil, g.user.auth()...).want(t, http.StatusOK, "")
	c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "t"}, h.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
}

// TestOAuthScopesAreDeclared: the scopes the client registry lets clients
// ask for are those the bundled actions declare, and the authorization
// server supports them beside the OpenID ones.
func TestOAuthScopesAreDeclared(t *testing.T) {
	t.Parallel()
	declared := []string{}
	for _, d := range appActions(t, map[string]string{}) {
		for _, s := range d.Spec.Scopes {
			if !slices.Contains(declared, s) {
				declared = append(declared, s)
			}
		}
	}
	if !slices.Equal(declared, v1.Scopes()) {
		t.Fatalf("the actions declare %v, the client policy knows %v", declared, v1.Scopes())
	}
}

// TestProtectedResourceMetadata: the RFC 9728 documents of PUBLIC_URL and
// of the MCP endpoint, and the authorization server's scopes.
func TestProtectedResourceMetadata(t *testing.T) {
	s := startOAuthServer(t)
	c := s.client()
	r := document(t, c, "/.well-known/oauth-protected-resource")
	wantDoc := func(r *apiResponse, resource string, scopes []any) {
		t.Helper()
		want := map[string]any{"resource": resource, "authorization_servers": []any{s.issuer},
			"scopes_supported": scopes, "bearer_methods_supported": []any{"header"}, "resource_name": "actionkit"}
		if !reflect.DeepEqual(r.Body, want) {
			t.Fatalf("metadata %s, want %v", r.Raw, want)
		}
	}
	wantDoc(r, s.issuer, []any{"account:read", "posts:write"})
	r = document(t, c, "/.well-known/oauth-protected-resource/mcp")
	wantDoc(r, s.issuer+"/mcp", []any{"account:read", "posts:write"})
	r = document(t, c, "/.well-known/oauth-authorization-server")
	if got := r.Body["scopes_supported"]; !reflect.DeepEqual(got, []any{"openid", "profile", "email", "offline_access", "account:read", "posts:write"}) {
		t.Fatalf("scopes_supported %v", got)
	}
	r = c.call(http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+s.issuer+`/.well-known/oauth-protected-resource/mcp"` {
		t.Fatalf("mcp without a token: %d %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}

	// MCP_PATH empty serves no MCP endpoint and no document of it.
	off := startOAuthServer(t, "MCP_PATH=")
	oc := off.client()
	if r := oc.call(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil); r.Status != http.StatusNotFound {
		t.Fatalf("the MCP metadata with MCP_PATH empty: %d %s", r.Status, r.Raw)
	}
	if r := oc.call(http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.Status != http.StatusNotFound {
		t.Fatalf("/mcp with MCP_PATH empty: %d %s", r.Status, r.Raw)
	}
}

// document GETs a JSON document that must answer 200.
func document(t *testing.T, c *client, path string) *apiResponse {
	t.Helper()
	r := c.call(http.MethodGet, path, nil)
	if r.Status != http.StatusOK || r.Body == nil {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
	}
	return r
}

// TestClientTokenOnScopedAction: a client_credentials token names no user
// (no sid): the bundled server declares no client scopes, so it is 401 on
// a scoped action even with the scope, over HTTP and over MCP.
func TestClientTokenOnScopedAction(t *testing.T) {
	s := startOAuthServer(t)
	scope := "account:read"
	id, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{mcpRedirect}, grants: []string{"client_credentials"}, scope: &scope})
	c := s.client()
	for _, resource := range []string{s.issuer, s.issuer + "/mcp"} {
		st, out := s.tokenCall(t, id, secret, url.Values{"grant_type": {"client_credentials"}, "scope": {scope}, "resource": {resource}})
		if st != http.StatusOK || out["scope"] != scope {
			t.Fatalf("client_credentials for %s: %d %v", resource, st, out)
		}
		bearer := []string{"Authorization", "Bearer " + out["access_token"].(string)}
		if resource == s.issuer {
			c.call(http.MethodPost, "/v1/users/read", nil, bearer...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			continue
		}
		r := c.call(http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, bearer...)
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("/mcp with a client's token: %d %s", r.Status, r.Raw)
		}
	}
}

// TestOpenAPIOAuthScheme: with the provider on, /openapi.json declares the
// oauth2 scheme with the declared scopes at the server's endpoints, and
// each scoped operation takes the first-party scheme or oauth2 with its
// scopes.
func TestOpenAPIOAuthScheme(t *testing.T) {
	s := startOAuthServer(t)
	doc := document(t, s.client(), "/openapi.json").Body
	flow := openapitest.At(doc, "components", "securitySchemes", "oauth2", "flows", "authorizationCode").(map[string]any)
	if flow["authorizationUrl"] != s.issuer+"/oauth2/authorize" || flow["tokenUrl"] != s.issuer+"/oauth2/token" {
		t.Fatalf("oauth2 flow %v", flow)
	}
	if scopes := flow["scopes"].(map[string]any); len(scopes) != 2 || scopes["account:read"] == nil || scopes["posts:write"] == nil {
		t.Fatalf("oauth2 scopes %v", flow["scopes"])
	}
	for path, scope := range map[string]string{"/v1/users/read": "account:read", "/v1/posts/create": "posts:write", "/v1/posts/publish": "posts:write"} {
		sec, _ := json.Marshal(openapitest.At(doc, "paths", path, "post", "security"))
		if string(sec) != `[{"jwt-user":[]},{"oauth2":["`+scope+`"]}]` {
			t.Errorf("%s security %s", path, sec)
		}
	}
	sec, _ := json.Marshal(openapitest.At(doc, "paths", "/v1/users/sessions", "post", "security"))
	if strings.Contains(string(sec), "oauth2") {
		t.Errorf("/v1/users/sessions takes oauth2: %s", sec)
	}
}
