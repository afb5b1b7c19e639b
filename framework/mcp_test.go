package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actionkit/actionkit/errorcodes"
)

// bearerTransport adds an access token to every request of the MCP
// client, as an MCP client holding one does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectMCP opens a session of the go-sdk's own client with the server
// at base, presenting token.
func connectMCP(t testing.TB, base, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "framework-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}
	s, err := client.Connect(context.Background(), transport, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

// newMCPServer serves a framework with the note tools on loopback.
func newMCPServer(t testing.TB) (*authServer, *Framework, *httptest.Server) {
	t.Helper()
	a := newAuthServer(t)
	f := newOAuthFramework(t, a, nil)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return a, f, srv
}

// structured reads a tool result's structuredContent as a JSON object.
func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content %v", res.Content)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil || !reflect.DeepEqual(fromText, m) {
		t.Errorf("text %s is not structuredContent %s", text.Text, raw)
	}
	return m
}

// TestMCPTools: through the go-sdk's client, the tools are listed with
// the arguments' schemas, a call answers the action's JSON as
// structuredContent, and invalid arguments or an action's error are a
// result with isError carrying the coded error.
func TestMCPTools(t *testing.T) {
	a, f, srv := newMCPServer(t)
	s, err := connectMCP(t, srv.URL, a.mint(t, grant{aud: testMCP, scope: "notes:read notes:write"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.InitializeResult().ServerInfo.Name; got != "Notes" {
		t.Errorf("server name %q", got)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	raw, err := f.OpenAPI(OpenAPIInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"read_note": "V1NotesReadArguments", "write_note": "V1NotesWriteArguments"}
	if len(list.Tools) != len(want) {
		t.Fatalf("tools %v", list.Tools)
	}
	for _, tool := range list.Tools {
		got, _ := json.Marshal(tool.InputSchema)
		exp, _ := json.Marshal(doc.Components.Schemas[want[tool.Name]])
		if string(got) != string(exp) || tool.Description == "" {
			t.Errorf("tool %s: schema %s, want the OpenAPI arguments %s", tool.Name, got, exp)
		}
	}

	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"text": "hello", "count": 2}})
	if err != nil {
		t.Fatal(err)
	}
	out := structured(t, res)
	if res.IsError || out["text"] != "hello" || out["count"] != 2.0 || out["userId"] != testUser.String() ||
		out["sessionId"] != testSession.String() || out["clientId"] != "ak_testclient" || out["success"] != true {
		t.Errorf("call: %v %v", res.IsError, out)
	}

	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"count": 9}})
	if err != nil {
		t.Fatal(err)
	}
	out = structured(t, res)
	fields, _ := out["fields"].(map[string]any)
	if !res.IsError || out["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" || fields["text"] == nil || fields["count"] == nil {
		t.Errorf("invalid arguments: %v %v", res.IsError, out)
	}

	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"text": "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	if out = structured(t, res); !res.IsError || out["error"] != "POST_NOT_FOUND" {
		t.Errorf("coded error: %v %v", res.IsError, out)
	}
}

// postMCP sends one JSON-RPC message to the MCP endpoint; the answer's
// body is read into the returned string. host, when given, is the Host
// header (as a reverse proxy on loopback sends it).
func postMCP(t testing.TB, base, token, body string, host ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(host) > 0 {
		req.Host = host[0]
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return res, string(raw)
}

// TestMCPAuthorization: every MCP request needs an access token for the
// MCP resource (401 with its metadata's challenge), and calling a tool
// whose scopes the token lacks is 403 with the step-up challenge.
func TestMCPAuthorization(t *testing.T) {
	a, _, srv := newMCPServer(t)
	const challenge = `Bearer resource_metadata="` + testMCPMeta + `"`
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for name, token := range map[string]string{
		"no token":            "",
		"the HTTP resource":   a.mint(t, grant{scope: "notes:read notes:write"}),
		"expired":             a.mint(t, grant{aud: testMCP, scope: "notes:read", exp: -time.Hour}),
		"wrong typ":           a.mint(t, grant{aud: testMCP, scope: "notes:read", typ: "JWT"}),
		"a first-party token": "user-web",
	} {
		res, body := postMCP(t, srv.URL, token, list)
		if res.StatusCode != 401 || res.Header.Get("WWW-Authenticate") != challenge || !strings.Contains(body, `"error":"UNAUTHORIZED"`) {
			t.Errorf("%s: %d %q %s", name, res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
		}
	}
	if _, err := connectMCP(t, srv.URL, ""); err == nil {
		t.Error("the client connected without a token")
	}

	readOnly := a.mint(t, grant{aud: testMCP, scope: "notes:read"})
	if res, body := postMCP(t, srv.URL, readOnly, list, "notes.example.com"); res.StatusCode != 200 || !strings.Contains(body, "read_note") {
		t.Errorf("behind a reverse proxy on loopback: %d %s", res.StatusCode, body)
	}
	res, body := postMCP(t, srv.URL, readOnly, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{"text":"x"}}}`)
	want := `Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="` + testMCPMeta + `"`
	var rpc struct {
		ID    int `json:"id"`
		Error struct {
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &rpc); err != nil || res.StatusCode != 403 || res.Header.Get("WWW-Authenticate") != want ||
		rpc.ID != 2 || rpc.Error.Data["error"] != "FORBIDDEN_INSUFFICIENT_SCOPE" || rpc.Error.Message == "" {
		t.Errorf("missing scope: %d %q %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
	}
	s, err := connectMCP(t, srv.URL, readOnly)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := s.ListTools(context.Background(), nil); err != nil || len(l.Tools) != 2 {
		t.Errorf("tools/list with one scope: %v %v", l, err)
	}
	if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Error("a tool ran without its scope")
	}
	if r, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"text": "x"}}); err != nil || r.IsError {
		t.Errorf("the tool of the token's scope: %v %v", r, err)
	}
}

// TestMCPToolMatchesHTTP: for each tool, the MCP call and the same HTTP
// request give the same answer, for valid and invalid arguments.
func TestMCPToolMatchesHTTP(t *testing.T) {
	a, _, srv := newMCPServer(t)
	s, err := connectMCP(t, srv.URL, a.mint(t, grant{aud: testMCP, scope: "notes:read notes:write"}))
	if err != nil {
		t.Fatal(err)
	}
	httpToken := a.mint(t, grant{scope: "notes:read notes:write"})
	paths := map[string]string{"read_note": "/v1/notes/read", "write_note": "/v1/notes/write"}
	cases := []struct{ tool, args string }{
		{"read_note", `{"text":"hi"}`},
		{"read_note", `{"text":"hi","count":"4"}`},
		{"read_note", `{}`},
		{"read_note", `{"text":"missing"}`},
		{"read_note", `{"text":["a"],"count":1.5}`},
		{"write_note", `{"text":"hello","count":5}`},
		{"write_note", `{"text":"far too long for a note, really"}`},
		{"write_note", `{"text":"x","count":0}`},
		{"write_note", `{"text":"x","unknown":true}`},
	}
	for _, c := range cases {
		req, err := http.NewRequest(http.MethodPost, srv.URL+paths[c.tool], strings.NewReader(c.args))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+httpToken)
		hres, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var viaHTTP map[string]any
		err = json.NewDecoder(hres.Body).Decode(&viaHTTP)
		_ = hres.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		mres, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		viaMCP := structured(t, mres)
		delete(viaHTTP, "requestId")
		delete(viaMCP, "requestId")
		if !reflect.DeepEqual(viaHTTP, viaMCP) || mres.IsError != (hres.StatusCode >= 400) {
			t.Errorf("%s %s:\nHTTP %d %v\nMCP  isError=%v %v", c.tool, c.args, hres.StatusCode, viaHTTP, mres.IsError, viaMCP)
		}
	}
}

// TestMCPToolCallRunsMiddleware: a tool call goes through the framework's
// middleware like the HTTP request (a rate limiter refusing the action's
// path refuses the tool), and is observed as a call of its action.
func TestMCPToolCallRunsMiddleware(t *testing.T) {
	a := newAuthServer(t)
	var mu sync.Mutex
	var seen []Observation
	var f *Framework
	var toolCalls, mcpRequests int
	limit := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if IsToolCall(r) {
				toolCalls++
			} else if r.URL.Path == "/mcp" {
				mcpRequests++
			}
			mu.Unlock()
			if r.URL.Path == "/v1/notes/write" {
				e := errorcodes.TooManyRequests.New()
				e.RetryAfter = time.Minute
				f.WriteError(w, r, e)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	f = newTestFramework(t, Config{Middleware: []func(http.Handler) http.Handler{limit},
		Observe: func(o Observation) { mu.Lock(); seen = append(seen, o); mu.Unlock() },
		OAuth:   &OAuth{Issuer: testIssuer, Keys: a.keys(t), Resource: testResource, MCPPath: "/mcp"}})
	Register(f, readNote)
	Register(f, writeNote)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	s, err := connectMCP(t, srv.URL, a.mint(t, grant{aud: testMCP, scope: "notes:read notes:write"}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"text": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if out := structured(t, res); !res.IsError || out["error"] != "TOO_MANY_REQUESTS" {
		t.Errorf("limited tool: %v %v", res.IsError, out)
	}
	if res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"text": "x"}}); err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	var actions []string
	for _, o := range seen {
		if o.Action != "" {
			actions = append(actions, fmt.Sprintf("%s %d", o.Action, o.Status))
		}
	}
	if strings.Join(actions, ",") != "V1NotesRead 200" {
		t.Errorf("observed actions %v", actions)
	}
	if toolCalls != 2 || mcpRequests < 3 {
		t.Errorf("middleware saw %d tool calls and %d MCP requests", toolCalls, mcpRequests)
	}
}

// BenchmarkScopedAction compares one call of a scoped action over HTTP
// with an access token and the same call as an MCP tool, both over
// loopback with real signatures, in the same run.
func BenchmarkScopedAction(b *testing.B) {
	a, _, srv := newMCPServer(b)
	httpToken := a.mint(b, grant{scope: "notes:read"})
	b.Run("http", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/notes/read", strings.NewReader(`{"text":"hi"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+httpToken)
			res, err := http.DefaultClient.Do(req)
			if err != nil || res.StatusCode != 200 {
				b.Fatal(res, err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
		}
	})
	s, err := connectMCP(b, srv.URL, a.mint(b, grant{aud: testMCP, scope: "notes:read"}))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("mcp", func(b *testing.B) {
		for b.Loop() {
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"text": "hi"}})
			if err != nil || res.IsError {
				b.Fatal(res, err)
			}
		}
	})
}

// TestMCPCORS: the MCP endpoint and the metadata answer any origin without
// credentials, exposing WWW-Authenticate, and answer their preflights,
// even beside CORS origins of the service's own.
func TestMCPCORS(t *testing.T) {
	a := newAuthServer(t)
	for _, origins := range [][]string{nil, {"https://app.example.com"}} {
		f := newTestFramework(t, Config{CORSOrigins: origins,
			OAuth: &OAuth{Issuer: testIssuer, Keys: a.keys(t), Resource: testResource, MCPPath: "/mcp"}})
		Register(f, readNote)
		res := do(t, f, http.MethodOptions, "/mcp", "", "", "Origin", "https://agent.example.org",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		if res.Code != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" ||
			!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") {
			t.Errorf("%v: preflight %d %v", origins, res.Code, res.Header)
		}
		res = do(t, f, http.MethodPost, "/mcp", "application/json", `{}`, "Origin", "https://app.example.com")
		if res.Code != 401 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" ||
			!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("%v: 401 %d %v", origins, res.Code, res.Header)
		}
		res = do(t, f, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", "", "Origin", "https://agent.example.org")
		if res.Code != 200 || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%v: metadata %d %v", origins, res.Code, res.Header)
		}
		res = do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{}`, "Origin", "https://agent.example.org")
		if res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%v: an action answered a foreign origin: %v", origins, res.Header)
		}
	}
}
