package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/examples/sibling/notes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/internal/mcptest"
)

// TestSiblingServesToolWithOAuth: the sibling example, configured from
// the bundled server's metadata (framework.DiscoverOAuth) and verifying
// its tokens through the published key set, accepts an OAuth token issued
// for its own resource on its scoped action, refuses the bundled server's
// own resource's token and a token of an ended session; and the official
// MCP TypeScript client, from nothing but the sibling's MCP URL, finds the
// bundled server as its authorization server, registers, is approved by
// the user and calls the sibling's tool.
func TestSiblingServesToolWithOAuth(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	siblingURL := "http://" + ln.Addr().String()
	port := freePort(t)
	issuer := "http://127.0.0.1:" + port
	env := testEnv(t, "OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PORT="+port, "PUBLIC_URL="+issuer,
		"OAUTH_DYNAMIC_REGISTRATION=true",
		"OAUTH_RESOURCES="+strings.Join([]string{issuer, issuer + "/mcp", siblingURL, siblingURL + "/mcp"}, ","))
	ts := startServerClock(t, env, nil, "api")
	ts.URL = issuer
	s := &oauthServer{testServer: ts, issuer: issuer, db: ts.db()}
	oauth, err := framework.DiscoverOAuth(t.Context(), nil, s.issuer)
	if err != nil {
		t.Fatal(err)
	}
	oauth.Resource, oauth.MCPPath = siblingURL, "/mcp"
	verifier, err := jwks.New(jwks.Config{URL: s.issuer + jwksPath, Issuer: "actionkit"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := notes.New(notes.Config{DB: s.db, Verifier: verifier, OAuth: oauth})
	if err != nil {
		t.Fatal(err)
	}
	sibling := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	sibling.Start()
	defer sibling.Close()
	c := &client{t: t, base: siblingURL, http: http.DefaultClient}

	g := s.oauthToken(t, notes.ScopeNotes, siblingURL)
	c.call(http.MethodPost, "/v1/notes/add", map[string]any{"text": "from an app"}, g.bearer()...).want(t, http.StatusCreated, "")
	// The first-party token works as before; an OAuth token never on the
	// action without scopes.
	list := c.call(http.MethodGet, "/v1/notes/list", nil, g.user.auth()...).want(t, http.StatusOK, "")
	if !strings.Contains(list.Raw, `"text":"from an app"`) {
		t.Fatalf("list %s", list.Raw)
	}
	c.call(http.MethodGet, "/v1/notes/list", nil, g.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	// A token for the bundled server is not one for the sibling.
	other := s.oauthTokenFor(t, g.browser, g.user, g.clientID, "posts:write", s.issuer)
	r := c.call(http.MethodPost, "/v1/notes/add", map[string]any{"text": "x"}, other.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer resource_metadata="`+siblingURL+`/.well-known/oauth-protected-resource"` {
		t.Fatalf("challenge %q", got)
	}

	out := mcptest.RunOAuth(t, mcptest.OAuthPlan{URL: siblingURL + "/mcp", UserToken: g.user.token, RedirectURL: mcpRedirect,
		Calls: []mcptest.Call{{Name: "add_note", Arguments: map[string]any{"text": "from an agent"}},
			{Name: "add_note", Arguments: map[string]any{"text": ""}}}})
	if out.Error != nil || !out.Connected || len(out.Tools) != 1 || out.Tools[0]["name"] != "add_note" {
		t.Fatalf("the client against the sibling: %+v tools %v requests %+v", out.Error, out.Tools, out.Requests)
	}
	if len(out.Authorizations) != 1 {
		t.Fatalf("authorizations %+v", out.Authorizations)
	}
	if az, err := url.Parse(out.Authorizations[0].URL); err != nil || !strings.HasPrefix(az.String(), s.issuer+"/oauth2/authorize?") ||
		az.Query().Get("resource") != siblingURL+"/mcp" || az.Query().Get("scope") != notes.ScopeNotes {
		t.Fatalf("authorization %s", out.Authorizations[0].URL)
	}
	if len(out.Calls) != 2 || out.Calls[0].Result == nil || out.Calls[0].Result.IsError ||
		out.Calls[0].Result.StructuredContent["note"].(map[string]any)["text"] != "from an agent" {
		t.Fatalf("add_note: %+v", out.Calls)
	}
	if out.Calls[1].Result == nil || !out.Calls[1].Result.IsError || out.Calls[1].Result.StructuredContent["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" {
		t.Fatalf("add_note without text: %+v", out.Calls[1])
	}

	// Logging out everywhere on the bundled server ends the token here.
	g.browser.call(http.MethodPost, "/v1/users/logoutall", nil, g.user.auth()...).want(t, http.StatusOK, "")
	c.call(http.MethodPost, "/v1/notes/add", map[string]any{"text": "late"}, g.bearer()...).want(t, http.StatusUnauthorized, "UNAUTHORIZED")
}
