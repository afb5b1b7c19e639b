package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth/accesstoken"
	"github.com/actionkit/actionkit/errorcodes"
)

// mcpEndpoint serves the actions that declare Spec.Tool over MCP's
// Streamable HTTP transport (stateless: any instance answers any request).
// Every request needs an access token for the MCP resource; a tool call
// runs its action in process through the framework's own pipeline, with
// the request's headers, so that a tool does exactly what the action's
// endpoint does and refuses exactly what it refuses.
type mcpEndpoint struct {
	f       *Framework
	once    sync.Once
	handler http.Handler
	tools   map[string]Descriptor
}

func newMCPEndpoint(f *Framework) *mcpEndpoint { return &mcpEndpoint{f: f} }

// mcpCall is what a tool call needs of the MCP request it came in: the
// request, and the access token the endpoint verified for it and the caller
// it resolved (one read of the session, with needs). It travels only in the
// context under an unexported key, which nothing outside this package can
// set: no header of any request can stand for it.
type mcpCall struct {
	outer  *http.Request
	tok    *accesstoken.Token
	caller *action.Caller
	needs  action.Needs
}

// build makes the MCP server of every registered tool, at the first
// request, when every action is registered.
func (m *mcpEndpoint) build() {
	f := m.f
	cfg := f.oauth.cfg
	server := mcp.NewServer(&mcp.Implementation{Name: cfg.MCPName, Version: cfg.MCPVersion},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	g := newOpenAPIGen(f, OpenAPIInfo{Rules: cfg.Rules})
	m.tools = map[string]Descriptor{}
	for _, d := range f.actions {
		if d.Spec.Tool == nil {
			continue
		}
		m.tools[d.Spec.Tool.Name] = d
		// The schema is marshalled once, here: the SDK marshals a tool's
		// schema again at every tools/list and reads it at every
		// tools/call, which for a map means reflection and sorting each
		// time, for raw JSON a copy.
		schema, err := json.Marshal(g.argsSchema(d))
		if err != nil {
			panic(fmt.Sprintf("framework: tool %s: input schema: %v", d.Spec.Tool.Name, err))
		}
		tool := &mcp.Tool{Name: d.Spec.Tool.Name, Description: d.Spec.Tool.Description, InputSchema: json.RawMessage(schema)}
		if d.Spec.Summary != "" {
			tool.Title = d.Spec.Summary
		}
		server.AddTool(tool, m.callTool(d))
	}
	// The SDK's protection against DNS rebinding refuses a request that
	// reached a loopback address under another Host: every request of a
	// service behind a reverse proxy on the same machine. It guards local
	// servers without authentication; here every request needs a bearer
	// token, which a rebound page does not have.
	m.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: f.maxBody,
			DisableLocalhostProtection: true})
}

// ServeHTTP authenticates an MCP request and hands it to the SDK: 401
// with the MCP resource's challenge without a live access token for the
// MCP resource, 403 with the step-up challenge for a tools/call whose
// tool's scopes the token lacks.
func (m *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.once.Do(m.build)
	f, rs := m.f, m.f.oauth
	token, ok := bearerToken(r)
	if !ok || !looksLikeAccessToken(token) {
		f.WriteError(w, r, unauthorizedChallenge(rs.mcpMetaURL))
		return
	}
	tok, err := rs.verifyToken(r.Context(), token, rs.mcpResource)
	if err != nil {
		f.WriteError(w, r, err)
		return
	}
	if tok == nil {
		f.WriteError(w, r, unauthorizedChallenge(rs.mcpMetaURL))
		return
	}
	var calls []rpcCall
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, f.maxBody))
		if err != nil {
			f.WriteError(w, r, errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
				"body": {Code: "too_large", Message: "must be at most {max} bytes", Params: map[string]any{"max": f.maxBody}},
			}))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var problem *errorcodes.FieldError
		if calls, problem = toolCalls(body); problem != nil {
			f.WriteError(w, r, errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{"body": *problem}))
			return
		}
	}
	var needs action.Needs
	for _, c := range calls {
		if d, ok := m.tools[c.Params.Name]; ok && d.Spec.Reauth != action.ReauthNone {
			needs.Assurance = true
		}
	}
	// The session is read once, here, for the request and every tool call
	// it carries: the tool calls run within this same request, as an HTTP
	// action runs after its own one read.
	caller, err := rs.resolveCaller(r.Context(), tok, rs.cfg.Owner, needs)
	if err != nil {
		f.WriteError(w, r, err)
		return
	}
	if caller == nil {
		f.WriteError(w, r, unauthorizedChallenge(rs.mcpMetaURL))
		return
	}
	for _, c := range calls {
		if d, ok := m.tools[c.Params.Name]; ok && !tok.HasScopes(d.Spec.Scopes) {
			m.refuse(w, r, c.ID, insufficientScope(tok.Scopes, d.Spec.Scopes, rs.mcpMetaURL))
			return
		}
	}
	ctx := context.WithValue(r.Context(), mcpCallKey{}, &mcpCall{outer: r, tok: tok, caller: caller, needs: needs})
	m.handler.ServeHTTP(w, r.WithContext(ctx))
}

// jsonrpcServerError is the JSON-RPC error code of a request the endpoint
// refuses before the MCP server sees it (in the range JSON-RPC leaves to
// implementations).
const jsonrpcServerError = -32001

// refuse answers the JSON-RPC request id with err: the framework's error
// answer (status, headers such as WWW-Authenticate, and the coded body),
// its body wrapped as the data of a JSON-RPC error response so that an MCP
// client reads it as the refusal of that one call and keeps its session.
func (m *mcpEndpoint) refuse(w http.ResponseWriter, r *http.Request, id json.RawMessage, err error) {
	rec := &bufferWriter{header: w.Header()}
	m.f.WriteError(rec, r, err)
	var coded struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(rec.buf.Bytes(), &coded)
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	raw, merr := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{jsonrpcServerError, coded.Message, rec.buf.Bytes()}})
	if merr != nil {
		raw = rec.buf.Bytes()
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(rec.status)
	_, _ = w.Write(raw)
}

// rpcCall is the part of a JSON-RPC request the endpoint reads.
type rpcCall struct {
	ID     json.RawMessage
	Method string
	Params struct{ Name string }
}

// toolCalls returns the tools/call request of a JSON-RPC message, read as
// the MCP SDK reads it: member names matched exactly (encoding/json would
// match "NAME" for "name", and the SDK does not), so that the scopes
// checked here are those of the tool the SDK runs. It refuses what the
// SDK might read differently or what would multiply one request's work: a
// batch (MCP 2025-06-18, the version CONTRACT §20 requires, has none,
// and each of its calls would run an action for one request's share of
// the global limit) and a member that appears twice. Anything else it
// cannot read is left to the SDK to refuse.
func toolCalls(body []byte) ([]rpcCall, *errorcodes.FieldError) {
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, &errorcodes.FieldError{Code: "batch", Message: "must be one JSON-RPC message, not a batch"}
	}
	msg, dup := members(body)
	if dup {
		return nil, &errorcodes.FieldError{Code: "duplicate_member", Message: "must name each member once"}
	}
	var call rpcCall
	if json.Unmarshal(msg["method"], &call.Method) != nil || call.Method != "tools/call" {
		return nil, nil
	}
	call.ID = msg["id"]
	params, dup := members(msg["params"])
	if dup {
		return nil, &errorcodes.FieldError{Code: "duplicate_member", Message: "must name each member once"}
	}
	_ = json.Unmarshal(params["name"], &call.Params.Name)
	return []rpcCall{call}, nil
}

// members returns the members of the JSON object raw by their exact names,
// and whether a name appears twice; what is not an object has none.
func members(raw []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if _, seen := out[name]; seen {
			return nil, true
		}
		out[name] = v
	}
	return out, false
}

// mcpSkipHeaders are the MCP transport's own headers, not the action's,
// and cookies: an MCP client authenticates with its access token only, so
// a tool never acts on a browser's credential cookies.
var mcpSkipHeaders = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Accept": true, "Accept-Encoding": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true, "Cookie": true,
}

// callTool runs d's action for a tool call: an in-process POST of the
// arguments as a JSON body to the action's path, with the MCP request's
// headers, client address and request id, through the whole framework
// (middleware such as rate limits included). The answer is the action's
// JSON body, as structuredContent and as text; an error answer is a
// result with isError.
func (m *mcpEndpoint) callTool(d Descriptor) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call, _ := ctx.Value(mcpCallKey{}).(*mcpCall)
		if call == nil {
			return nil, errors.New("framework: a tool call outside the MCP endpoint")
		}
		args := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = []byte("{}")
		}
		outer := call.outer
		inner, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Spec.Path, bytes.NewReader(args))
		if err != nil {
			return nil, err
		}
		for k, vs := range outer.Header {
			if !mcpSkipHeaders[http.CanonicalHeaderKey(k)] {
				inner.Header[k] = vs
			}
		}
		inner.Header.Set("Content-Type", "application/json")
		inner.Header.Set("Accept", "application/json")
		if id := RequestID(outer.Context()); id != "" {
			inner.Header.Set("X-Request-ID", id)
		}
		inner.Host, inner.RemoteAddr, inner.TLS = outer.Host, outer.RemoteAddr, outer.TLS
		inner.ContentLength = int64(len(args))
		rec := &bufferWriter{header: http.Header{}}
		m.f.ServeHTTP(rec, inner)
		if rec.status == StatusClientClosedRequest {
			return nil, context.Cause(ctx)
		}
		body := rec.buf.Bytes()
		res := &mcp.CallToolResult{IsError: rec.status >= 400}
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(body)}}
		if json.Valid(body) {
			res.StructuredContent = json.RawMessage(body)
		}
		return res, nil
	}
}

// bufferWriter records an in-process answer.
type bufferWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.buf.Write(b)
}

// IsToolCall reports whether r is a tool call the MCP endpoint runs in
// process through the framework, so that middleware can tell it from the
// MCP request that carries it: a rate limiter counts the MCP request
// against the global limit and the tool call against its action's class,
// rather than the global limit twice.
func IsToolCall(r *http.Request) bool { return r.Context().Value(mcpCallKey{}) != nil }

// MCPResource is the resource URI of the MCP endpoint, the aud its tokens
// must carry; "" when the framework serves none.
func (f *Framework) MCPResource() string {
	if f.oauth == nil {
		return ""
	}
	return f.oauth.mcpResource
}
