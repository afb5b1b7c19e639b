package main

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerRoundTripper adds an access token to every request of an MCP
// client, as a client holding one does.
type bearerRoundTripper struct{ token string }

func (b bearerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession opens a session of the go-sdk's client with the MCP
// endpoint at mcpURL, presenting token.
func mcpSession(t *testing.T, mcpURL, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "actionkit-server-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: mcpURL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerRoundTripper{token}}}
	s, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// perCall are the members of an answer that differ between two calls
// that do the same: the request id, a new post's id and times, a job id.
var perCall = map[string]bool{"requestId": true, "id": true, "createdAt": true, "updatedAt": true, "publishedAt": true, "jobId": true}

// sameAnswer strips the members of perCall from a decoded answer.
func sameAnswer(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if !perCall[k] {
				out[k] = sameAnswer(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sameAnswer(e)
		}
		return out
	}
	return v
}

// TestMCPToolsAnswerAsHTTP: for every bundled tool, with valid and invalid
// arguments, the MCP call answers what the same HTTP request answers: the
// same JSON body (as structuredContent and as text), an error exactly
// when HTTP answers one.
func TestMCPToolsAnswerAsHTTP(t *testing.T) {
	s := startOAuthServer(t)
	const scope = "account:read posts:write"
	g := s.oauthToken(t, scope, s.issuer)
	m := s.oauthTokenFor(t, g.browser, g.user, g.clientID, scope, s.issuer+"/mcp")
	session := mcpSession(t, s.issuer+"/mcp", m.token)
	c := g.browser.client

	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, tool := range tools.Tools {
		names[tool.Name] = ""
	}
	paths := map[string]string{"read_account": "/v1/users/read", "create_post": "/v1/posts/create", "publish_post": "/v1/posts/publish"}
	if len(names) != len(paths) {
		t.Fatalf("tools %v, the table covers %v", names, paths)
	}
	draft := func() string {
		return c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "Draft"}, g.user.auth()...).
			want(t, http.StatusCreated, "").obj("post")["id"].(string)
	}
	other := uuid.Must(uuid.NewV7()).String()
	cases := []struct {
		tool string
		args func() map[string]any // a fresh value for each side
	}{
		{"read_account", func() map[string]any { return map[string]any{} }},
		{"read_account", func() map[string]any { return map[string]any{"id": g.user.id} }},
		{"read_account", func() map[string]any { return map[string]any{"id": other} }},
		{"read_account", func() map[string]any { return map[string]any{"id": "not-a-uuid"} }},
		{"create_post", func() map[string]any { return map[string]any{"title": "  Hello  ", "body": "World"} }},
		{"create_post", func() map[string]any { return map[string]any{} }},
		{"create_post", func() map[string]any { return map[string]any{"title": 7} }},
		{"create_post", func() map[string]any { return map[string]any{"title": strings.Repeat("x", 201)} }},
		{"publish_post", func() map[string]any { return map[string]any{"postId": draft()} }},
		{"publish_post", func() map[string]any { return map[string]any{"postId": draft(), "async": true} }},
		{"publish_post", func() map[string]any { return map[string]any{"postId": other} }},
		{"publish_post", func() map[string]any { return map[string]any{"postId": "x"} }},
		{"publish_post", func() map[string]any { return map[string]any{} }},
	}
	for _, tc := range cases {
		args := tc.args()
		r := c.call(http.MethodPost, paths[tc.tool], args, g.bearer()...)
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args()})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, args, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var got any
		_ = json.Unmarshal(raw, &got)
		text := res.Content[0].(*mcp.TextContent).Text
		var fromText any
		_ = json.Unmarshal([]byte(text), &fromText)
		var want any
		_ = json.Unmarshal([]byte(r.Raw), &want)
		if res.IsError != (r.Status >= 400) || !reflect.DeepEqual(sameAnswer(got), sameAnswer(want)) ||
			!reflect.DeepEqual(got, fromText) {
			t.Errorf("%s %v: MCP isError=%v %s, HTTP %d %s", tc.tool, args, res.IsError, text, r.Status, r.Raw)
		}
	}
}

// TestToolCallCountsOnceInGlobalLimit: a tool call runs in process within
// its MCP request, and the global rate limit counts the two once: with
// RATE_LIMIT_MAX=10, a client's ten MCP tool calls all run (counted twice,
// the sixth would be refused), the eleventh request is 429.
func TestToolCallCountsOnceInGlobalLimit(t *testing.T) {
	s := startOAuthServer(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=10")
	g := s.oauthToken(t, "account:read", s.issuer+"/mcp")
	c := g.browser.client
	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "read_account", "arguments": map[string]any{}}}
	headers := append(g.bearer(), "Accept", "application/json, text/event-stream", "X-Forwarded-For", "203.0.113.7")
	for i := range 10 {
		r := c.call(http.MethodPost, "/mcp", call, headers...)
		if r.Status != http.StatusOK || !strings.Contains(r.Raw, `"structuredContent"`) || strings.Contains(r.Raw, `"isError":true`) {
			t.Fatalf("tool call %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	if r := c.call(http.MethodPost, "/mcp", call, headers...); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the eleventh request: %d %s", r.Status, r.Raw)
	}
}
