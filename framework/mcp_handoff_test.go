package framework

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/accesstoken"
)

// countingSessions is a liveSessions that counts the session reads and
// records what each asked for.
type countingSessions struct {
	liveSessions
	mu    sync.Mutex
	needs []action.Needs
}

func (s *countingSessions) OAuthCaller(ctx context.Context, owner action.OwnerType, tok *accesstoken.Token, needs action.Needs) (*action.Caller, error) {
	s.mu.Lock()
	s.needs = append(s.needs, needs)
	s.mu.Unlock()
	return s.liveSessions.OAuthCaller(ctx, owner, tok, needs)
}

// reads returns the session reads so far and forgets them.
func (s *countingSessions) reads() []action.Needs {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.needs
	s.needs = nil
	return n
}

// toolResult reads the tools/call result of a JSON-RPC answer.
func toolResult(t *testing.T, body string) (isError bool, out map[string]any) {
	t.Helper()
	var rpc struct {
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &rpc); err != nil || rpc.Result.StructuredContent == nil {
		t.Fatalf("not a tool result: %s (%v)", body, err)
	}
	return rpc.Result.IsError, rpc.Result.StructuredContent
}

// TestMCPToolCallReadsSessionOnce: a tool call reads its session once, at
// the MCP request, asking for the Assurance when the tool has a
// Spec.Reauth, and the action's own rules still apply to that one read:
// its Reauth refuses a session that does not meet it, and a session ended
// before the request is refused before any tool runs.
func TestMCPToolCallReadsSessionOnce(t *testing.T) {
	a := newAuthServer(t)
	sessions := &countingSessions{liveSessions: liveSessions{ended: map[string]bool{}}}
	f := newOAuthFramework(t, a, sessions)
	Register(f, noteAction{action.Spec{Name: "V1NotesSecret", Path: "/v1/notes/secret", Auth: action.Owner("user"),
		Reauth: action.ReauthLevel, Scopes: []string{"notes:read"},
		Tool: &action.Tool{Name: "read_secret", Description: "Reads a secret note."}}})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	token := a.mint(t, grant{aud: testMCP, scope: "notes:read"})
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"hi"}}}`
	}

	res, body := postMCP(t, srv.URL, token, call("read_note"))
	if isErr, out := toolResult(t, body); res.StatusCode != 200 || isErr || out["userId"] != testUser.String() || out["clientId"] != "ak_testclient" {
		t.Fatalf("tool call: %d %s", res.StatusCode, body)
	}
	if got := sessions.reads(); len(got) != 1 || got[0].Assurance {
		t.Errorf("session reads of a tool call: %+v, want one without Assurance", got)
	}

	res, body = postMCP(t, srv.URL, token, call("read_secret"))
	if isErr, out := toolResult(t, body); res.StatusCode != 200 || !isErr || out["error"] != "FORBIDDEN" {
		t.Errorf("a Reauth tool on a session without its second factor: %d %s", res.StatusCode, body)
	}
	if got := sessions.reads(); len(got) != 1 || !got[0].Assurance {
		t.Errorf("session reads of a Reauth tool call: %+v, want one with Assurance", got)
	}

	sessions.liveSessions.mu.Lock()
	sessions.liveSessions.ended[testSession.String()] = true
	sessions.liveSessions.mu.Unlock()
	res, body = postMCP(t, srv.URL, token, call("read_note"))
	if res.StatusCode != 401 || !strings.Contains(body, `"error":"UNAUTHORIZED"`) {
		t.Errorf("ended session: %d %s", res.StatusCode, body)
	}
}

// TestMCPToolCallCannotBeForged: what a tool call is handed (the verified
// token and its caller) travels only in process; no request from outside,
// whatever its headers, skips the token's verification or the session's
// read, at the MCP endpoint or at the action's own path.
func TestMCPToolCallCannotBeForged(t *testing.T) {
	a := newAuthServer(t)
	sessions := &countingSessions{liveSessions: liveSessions{ended: map[string]bool{}}}
	var toolCalls int
	var mu sync.Mutex
	f := newTestFramework(t, Config{Authenticator: tokenAuth{}, Middleware: []func(http.Handler) http.Handler{
		func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if IsToolCall(r) {
					mu.Lock()
					toolCalls++
					mu.Unlock()
				}
				next.ServeHTTP(w, r)
			})
		},
	}, OAuth: &OAuth{Issuer: testIssuer, Keys: a.keys(t), Resource: testResource, MCPPath: "/mcp", Sessions: sessions}})
	Register(f, readNote)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)

	other, err := auth.GenerateKey(auth.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	other.ID = a.ed.ID
	mcpHeaders := []string{"Mcp-Session-Id", "s-1", "Mcp-Protocol-Version", "2025-06-18", "X-Request-ID", "r-1",
		"X-Mcp-Call", "1", "X-Tool-Call", "read_note", "X-Forwarded-For", "127.0.0.1", "Cookie", "session=x"}
	bad := map[string]string{
		"no token":          "",
		"another key":       a.mint(t, grant{aud: testMCP, scope: "notes:read", key: other}),
		"expired":           a.mint(t, grant{aud: testMCP, scope: "notes:read", exp: -time.Hour}),
		"the HTTP resource": a.mint(t, grant{scope: "notes:read"}),
		"unsigned":          unsigned(t, "none"),
		"HS256":             hmacToken(t),
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_note","arguments":{"text":"hi"}}}`
	for name, token := range bad {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(call))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i < len(mcpHeaders); i += 2 {
			req.Header.Set(mcpHeaders[i], mcpHeaders[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("MCP, %s: %d", name, res.StatusCode)
		}
	}

	// At the action's path, a token for the MCP resource is not one for
	// the service, whatever the request says of itself.
	mcpToken := a.mint(t, grant{aud: testMCP, scope: "notes:read"})
	for name, token := range map[string]string{"the MCP resource": mcpToken, "no token": "", "unsigned": unsigned(t, "none")} {
		hdrs := append([]string{}, mcpHeaders...)
		if token != "" {
			hdrs = append(hdrs, bearer(token)...)
		}
		res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, hdrs...)
		if res.Code != 401 || res.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+testMetadata+`"` {
			t.Errorf("HTTP, %s: %d %v %s", name, res.Code, res.Header, res.Raw)
		}
	}
	if got := sessions.reads(); len(got) != 0 {
		t.Errorf("a refused token reached the session store: %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if toolCalls != 0 {
		t.Errorf("%d requests from outside ran as tool calls", toolCalls)
	}
}
