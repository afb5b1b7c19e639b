package main

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/mcptest"
)

// TestMCPOAuthWithTypeScriptClient: the official MCP TypeScript client,
// given nothing but the MCP URL, meets the 401 challenge, reads the
// protected-resource metadata and the authorization server's, registers
// dynamically, sends the user to authorize with PKCE and the MCP
// resource, and once the user approved (the interaction API, with the
// request's cookie) lists the tools with their schemas and calls them;
// an action's error is a tool error. Then a client holding a token
// without posts:write meets the 403 step-up challenge on create_post,
// asks for the wider scope, and the call succeeds.
func TestMCPOAuthWithTypeScriptClient(t *testing.T) {
	s := startOAuthServer(t, "OAUTH_DYNAMIC_REGISTRATION=true")
	mcpURL := s.issuer + "/mcp"
	b := s.browser()
	u := loginUser(t, b)
	draft := b.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "Draft"}, u.auth()...).
		want(t, http.StatusCreated, "").obj("post")["id"].(string)
	unknown := uuid.Must(uuid.NewV7()).String()

	out := mcptest.RunOAuth(t, mcptest.OAuthPlan{URL: mcpURL, UserToken: u.token, RedirectURL: mcpRedirect,
		Calls: []mcptest.Call{
			{Name: "read_account", Arguments: map[string]any{}},
			{Name: "create_post", Arguments: map[string]any{"title": "From an agent", "body": "Hello"}},
			{Name: "publish_post", Arguments: map[string]any{"postId": draft}},
			{Name: "publish_post", Arguments: map[string]any{"postId": unknown}},
			{Name: "create_post", Arguments: map[string]any{"title": ""}},
		}})
	if out.Error != nil || !out.Connected {
		t.Fatalf("the client did not connect: %+v (requests %+v)", out.Error, out.Requests)
	}

	// The chain, in order, from the first request on.
	steps := []struct{ method, path string }{
		{"POST", "/mcp"},
		{"GET", "/.well-known/oauth-protected-resource/mcp"},
		{"GET", "/.well-known/oauth-authorization-server"},
		{"POST", "/oauth2/register"},
		{"POST", "/oauth2/token"},
		{"POST", "/mcp"},
	}
	i := 0
	for _, r := range out.Requests {
		if i < len(steps) && r.Method == steps[i].method && r.URL == s.issuer+steps[i].path {
			if i == 0 && (r.Status != http.StatusUnauthorized ||
				r.WWWAuthenticate != `Bearer resource_metadata="`+s.issuer+`/.well-known/oauth-protected-resource/mcp"`) {
				t.Fatalf("the first MCP request: %+v", r)
			}
			if i > 0 && r.Status/100 != 2 {
				t.Fatalf("step %s %s: %+v", steps[i].method, steps[i].path, r)
			}
			i++
		}
	}
	if i != len(steps) {
		t.Fatalf("the client's requests miss %v of the chain: %+v", steps[i], out.Requests)
	}
	if len(out.Authorizations) != 1 {
		t.Fatalf("authorizations %+v", out.Authorizations)
	}
	az, err := url.Parse(out.Authorizations[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	q := az.Query()
	if az.Path != "/oauth2/authorize" || q.Get("resource") != mcpURL || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("client_id") != out.Client["client_id"] || q.Get("scope") != "account:read posts:write" {
		t.Fatalf("authorization URL %s", az)
	}
	if !strings.HasPrefix(out.Client["client_id"].(string), "ak_") {
		t.Fatalf("registered client %v", out.Client)
	}

	// tools/list: every bundled tool, its input schema the action's.
	byName := map[string]map[string]any{}
	for _, tool := range out.Tools {
		byName[tool["name"].(string)] = tool
	}
	for _, name := range []string{"read_account", "create_post", "publish_post"} {
		if byName[name] == nil || byName[name]["description"] == "" {
			t.Fatalf("tool %s missing: %v", name, out.Tools)
		}
	}
	schema := byName["create_post"]["inputSchema"].(map[string]any)
	props := schema["properties"].(map[string]any)
	if props["title"] == nil || props["body"] == nil || !slices.Contains(anyStrings(schema["required"]), "title") {
		t.Fatalf("create_post inputSchema %v", schema)
	}

	if len(out.Calls) != 5 {
		t.Fatalf("calls %+v", out.Calls)
	}
	for i, c := range out.Calls {
		if c.Error != nil || c.Result == nil {
			t.Fatalf("call %d: %+v", i, c.Error)
		}
	}
	c := out.Calls
	if c[0].Result.IsError || c[0].Result.StructuredContent["user"].(map[string]any)["email"] != u.email {
		t.Fatalf("read_account: %+v", c[0].Result)
	}
	if c[1].Result.IsError || c[1].Result.StructuredContent["post"].(map[string]any)["title"] != "From an agent" {
		t.Fatalf("create_post: %+v", c[1].Result)
	}
	if c[2].Result.IsError || c[2].Result.StructuredContent["post"].(map[string]any)["id"] != draft {
		t.Fatalf("publish_post: %+v", c[2].Result)
	}
	if !c[3].Result.IsError || c[3].Result.StructuredContent["error"] != "POST_NOT_FOUND" {
		t.Fatalf("publish_post of an unknown post: %+v", c[3].Result)
	}
	if !c[4].Result.IsError || c[4].Result.StructuredContent["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" {
		t.Fatalf("create_post without a title: %+v", c[4].Result)
	}

	// Step-up: the same client holding a token of account:read only.
	clientID := out.Client["client_id"].(string)
	narrow := s.oauthTokenFor(t, b, u, clientID, "account:read", mcpURL)
	up := mcptest.RunOAuth(t, mcptest.OAuthPlan{URL: mcpURL, UserToken: u.token, RedirectURL: mcpRedirect,
		Client: out.Client, Tokens: map[string]any{"access_token": narrow.token, "token_type": "Bearer"},
		Calls: []mcptest.Call{
			{Name: "read_account", Arguments: map[string]any{}},
			{Name: "create_post", Arguments: map[string]any{"title": "Stepped up"}},
		}})
	if up.Error != nil || len(up.Calls) != 2 {
		t.Fatalf("step-up run: %+v %+v", up.Error, up.Calls)
	}
	if up.Calls[0].StepUp || up.Calls[0].Result == nil || up.Calls[0].Result.IsError {
		t.Fatalf("read_account with account:read: %+v", up.Calls[0])
	}
	var challenge *mcptest.Request
	for i := range up.Requests {
		if up.Requests[i].Status == http.StatusForbidden {
			challenge = &up.Requests[i]
		}
	}
	want := `Bearer error="insufficient_scope", scope="account:read posts:write", resource_metadata="` +
		s.issuer + `/.well-known/oauth-protected-resource/mcp"`
	if challenge == nil || challenge.URL != mcpURL || challenge.WWWAuthenticate != want {
		t.Fatalf("no step-up challenge: %+v", up.Requests)
	}
	sc := up.Calls[1]
	if !sc.StepUp || sc.Result == nil || sc.Result.IsError || sc.Result.StructuredContent["post"].(map[string]any)["title"] != "Stepped up" {
		t.Fatalf("create_post after the step-up: %+v %+v", sc.Error, sc.Result)
	}
	if got, _ := up.Tokens["scope"].(string); got != "account:read posts:write" {
		t.Fatalf("the stepped-up token's scope %q", got)
	}
}

// anyStrings converts a JSON array of strings.
func anyStrings(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }
