package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// rawPost sends body to the server at path with headers (name, value
// pairs) and returns the status and the raw answer, whatever its shape.
func rawPost(t *testing.T, s *oauthServer, path string, body []byte, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.issuer+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(raw)
}

// TestMCPRefusesBatches: a JSON-RPC batch (which the SDK still accepts
// from a client that names no protocol version, or 2025-03-26) would run
// each of its tools/call in process for one request's share of the global
// rate limit: with RATE_LIMIT_MAX=10, one POST of eleven tool calls ran
// eleven actions. MCP 2025-06-18, the version CONTRACT §20 requires, has
// no batches: the endpoint refuses one with 400 and runs none of it.
func TestMCPRefusesBatches(t *testing.T) {
	s := startOAuthServer(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=10")
	g := s.oauthToken(t, "account:read", s.issuer+"/mcp")
	var batch []any
	for i := range 11 {
		batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": "read_account", "arguments": map[string]any{}}})
	}
	body, _ := json.Marshal(batch)
	st, _, raw := rawPost(t, s, "/mcp", body, append(g.bearer(), "X-Forwarded-For", "203.0.113.9")...)
	if ran := strings.Count(raw, `"structuredContent"`); st != http.StatusBadRequest || ran != 0 ||
		!strings.Contains(raw, "not a batch") {
		t.Fatalf("a batch of 11 tool calls: %d, %d ran: %.300s", st, ran, raw)
	}
}

// TestMCPStepUpReadsToolNameAsSDK: the endpoint's check of a tool call's
// scopes must read the tool name the SDK runs. The SDK decodes JSON-RPC
// with case-sensitive member names, encoding/json does not, so with
// "name" and "NAME" the endpoint checks one tool and the SDK calls the
// other: a token without posts:write calling create_post must get the
// HTTP 403 step-up challenge (CONTRACT §20), not a 200 tool result.
func TestMCPStepUpReadsToolNameAsSDK(t *testing.T) {
	s := startOAuthServer(t)
	g := s.oauthToken(t, "account:read", s.issuer+"/mcp")
	plain := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_post","arguments":{"title":"x"}}}`
	if st, h, raw := rawPost(t, s, "/mcp", []byte(plain), g.bearer()...); st != http.StatusForbidden ||
		!strings.Contains(h.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Fatalf("create_post without posts:write: %d %q %.200s", st, h.Get("WWW-Authenticate"), raw)
	}
	masked := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_post","NAME":"read_account","arguments":{"title":"x"}}}`
	st, h, raw := rawPost(t, s, "/mcp", []byte(masked), g.bearer()...)
	if st != http.StatusForbidden || !strings.Contains(h.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Fatalf("create_post masked as read_account: %d %q %.300s", st, h.Get("WWW-Authenticate"), raw)
	}
	// A member named twice could be read one way here and another by the
	// SDK: refused, with nothing run.
	for _, twice := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_account","name":"create_post","arguments":{"title":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"create_post","arguments":{"title":"x"}}}`,
	} {
		if st, _, raw := rawPost(t, s, "/mcp", []byte(twice), g.bearer()...); st != http.StatusBadRequest ||
			!strings.Contains(raw, "must name each member once") {
			t.Errorf("%s: %d %.300s", twice, st, raw)
		}
	}
}
