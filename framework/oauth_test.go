package framework

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/accesstoken"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/internal/openapitest"
)

const (
	testIssuer   = "https://id.example.com"
	testResource = "https://notes.example.com"
	testMCP      = testResource + "/mcp"
	testMetadata = testResource + "/.well-known/oauth-protected-resource"
	testMCPMeta  = testMetadata + "/mcp"
)

// authServer is a test authorization server: its signing keys (one
// Ed25519, one P-256) and their key set, served over real HTTP on
// loopback.
type authServer struct {
	ed, es *auth.Key
	jwks   *httptest.Server
}

func newAuthServer(t testing.TB) *authServer {
	t.Helper()
	a := &authServer{}
	var err error
	if a.ed, err = auth.GenerateKey(auth.EdDSA); err != nil {
		t.Fatal(err)
	}
	if a.es, err = auth.GenerateKey(auth.ES256); err != nil {
		t.Fatal(err)
	}
	a.ed.ID, a.es.ID = "ed-1", "es-1"
	doc, err := jwks.Marshal([]*auth.Key{a.ed, a.es})
	if err != nil {
		t.Fatal(err)
	}
	a.jwks = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}))
	t.Cleanup(a.jwks.Close)
	return a
}

// keys is the resource server's view of the key set: fetched from its URL.
func (a *authServer) keys(t testing.TB) auth.KeySource {
	t.Helper()
	k, err := jwks.NewKeys(jwks.Config{URL: a.jwks.URL + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// grant is what a test token says; mint fills in the rest.
type grant struct {
	aud, scope, iss, typ string
	sub, sid             string
	auds                 []string
	exp                  time.Duration
	key                  *auth.Key
	header               map[string]any // replaces header members
	drop                 []string       // claims left out
}

var (
	testUser    = uuid.MustParse("01930000-0000-7000-8000-000000000001")
	testSession = uuid.MustParse("01930000-0000-7000-8000-000000000002")
)

// mint signs an access token as the authorization server does (RFC 9068).
func (a *authServer) mint(t testing.TB, g grant) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": orDefault(g.iss, testIssuer), "sub": orDefault(g.sub, testUser.String()),
		"aud": orDefault(g.aud, testResource), "client_id": "ak_testclient", "scope": g.scope,
		"exp": now.Add(orDefault(g.exp, 5*time.Minute)).Unix(), "iat": now.Unix(),
		"jti": uuid.NewString(), "sid": orDefault(g.sid, testSession.String()), "auth_time": now.Unix(),
	}
	if g.auds != nil {
		claims["aud"] = g.auds
	}
	for _, c := range g.drop {
		delete(claims, c)
	}
	key := g.key
	if key == nil {
		key = a.ed
	}
	tok := jwt.NewWithClaims(jwt.GetSigningMethod(key.Alg), claims)
	tok.Header["typ"] = orDefault(g.typ, "at+jwt")
	tok.Header["kid"] = key.ID
	for k, v := range g.header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key.Private)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// noteArgs and noteResult are the scoped test actions' arguments and
// answer: the answer shows the caller the action saw.
type noteArgs struct {
	Text  string `arg:"text" validate:"required,max=20"`
	Count int    `arg:"count" default:"1" validate:"min=1,max=5"`
}

type noteResult struct {
	Text      string   `json:"text"`
	Count     int      `json:"count"`
	UserID    string   `json:"userId"`
	SessionID string   `json:"sessionId"`
	ClientID  string   `json:"clientId"`
	Scopes    []string `json:"scopes"`
}

type noteAction struct{ spec action.Spec }

func (a noteAction) Spec() action.Spec { return a.spec }

func (noteAction) Run(_ context.Context, req *action.Request, in *noteArgs) (*noteResult, error) {
	if in.Text == "missing" {
		return nil, testPostNotFound.New()
	}
	c := req.Caller
	return &noteResult{Text: in.Text, Count: in.Count, UserID: c.ID.String(), SessionID: c.SessionID.String(),
		ClientID: c.ClientID, Scopes: c.Scopes}, nil
}

var (
	readNote = noteAction{action.Spec{Name: "V1NotesRead", Path: "/v1/notes/read", Summary: "Read a note",
		Auth: action.Owner("user"), Scopes: []string{"notes:read"},
		Tool: &action.Tool{Name: "read_note", Description: "Reads a note."}}}
	writeNote = noteAction{action.Spec{Name: "V1NotesWrite", Path: "/v1/notes/write", Summary: "Write a note",
		Auth: action.Owner("user"), Scopes: []string{"notes:write"},
		Tool: &action.Tool{Name: "write_note", Description: "Writes a note."}}}
)

// liveSessions is a test OAuthSessions: the sessions in ended are over.
type liveSessions struct {
	mu    sync.Mutex
	ended map[string]bool
}

func (s *liveSessions) OAuthCaller(_ context.Context, owner action.OwnerType, tok *accesstoken.Token, needs action.Needs) (*action.Caller, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended[tok.SessionID] {
		return nil, nil
	}
	c := &action.Caller{Type: owner, ID: uuid.MustParse(tok.Subject), SessionID: uuid.MustParse(tok.SessionID), Locale: "en"}
	if needs.Assurance {
		// The owner has a second factor that this session did not use.
		c.Assurance = action.Assurance{Level: 1, SecondFactor: true}
	}
	return c, nil
}

// newOAuthFramework is a framework of a service that accepts the test
// authorization server's tokens, with the scoped note actions (also
// tools) and the unscoped whoami.
func newOAuthFramework(t testing.TB, a *authServer, sessions OAuthSessions) *Framework {
	t.Helper()
	f := newTestFramework(t, Config{Authenticator: tokenAuth{}, Reauthentication: &Reauthentication{
		MaxAge: time.Minute, Code: func(action.OwnerType) errorcodes.Code { return errorcodes.Forbidden },
	}, OAuth: &OAuth{
		Issuer: testIssuer, Keys: a.keys(t), Resource: testResource, ResourceName: "Notes",
		MCPPath: "/mcp", Sessions: sessions,
	}})
	Register(f, readNote)
	Register(f, writeNote)
	Register(f, whoami{auth: action.Owner("user")})
	return f
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// TestOAuthScopedAction: a scoped action accepts exactly the access tokens
// of its authorization server for its resource with its scopes, answers
// the exact challenges otherwise, never accepts one on an action without
// scopes, and still takes first-party tokens.
func TestOAuthScopedAction(t *testing.T) {
	a := newAuthServer(t)
	f := newOAuthFramework(t, a, nil)
	const challenge = `Bearer resource_metadata="` + testMetadata + `"`

	ok := func(name string, g grant) {
		t.Helper()
		res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(a.mint(t, g))...)
		if res.Code != 200 {
			t.Fatalf("%s: %d %s", name, res.Code, res.Raw)
		}
		if res.Body["userId"] != testUser.String() || res.Body["sessionId"] != testSession.String() ||
			res.Body["clientId"] != "ak_testclient" || fmt.Sprint(res.Body["scopes"]) != fmt.Sprint(strings.Fields(g.scope)) {
			t.Errorf("%s: the action saw %s", name, res.Raw)
		}
	}
	ok("EdDSA", grant{scope: "notes:read"})
	ok("ES256 with more scopes", grant{scope: "openid notes:read notes:write", key: a.es})
	ok("application/at+jwt", grant{scope: "notes:read", typ: "application/at+jwt"})
	ok("aud in another serialization", grant{scope: "notes:read", aud: "HTTPS://Notes.Example.com:443/"})
	ok("aud in a list", grant{scope: "notes:read", auds: []string{"https://other.example.com", testResource}})

	refused := func(name, token string) {
		t.Helper()
		res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(token)...)
		if res.Code != 401 || res.Body["error"] != "UNAUTHORIZED" || res.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%s: %d %s %q", name, res.Code, res.Raw, res.Header.Get("WWW-Authenticate"))
		}
	}
	refused("wrong aud", a.mint(t, grant{scope: "notes:read", aud: "https://other.example.com"}))
	refused("the MCP resource over HTTP", a.mint(t, grant{scope: "notes:read", aud: testMCP}))
	refused("typ JWT", a.mint(t, grant{scope: "notes:read", typ: "JWT"}))
	refused("wrong iss", a.mint(t, grant{scope: "notes:read", iss: "https://evil.example.com"}))
	refused("expired", a.mint(t, grant{scope: "notes:read", exp: -time.Hour}))
	refused("no exp", a.mint(t, grant{scope: "notes:read", drop: []string{"exp"}}))
	refused("no sid", a.mint(t, grant{scope: "notes:read", drop: []string{"sid"}}))
	refused("unknown kid", a.mint(t, grant{scope: "notes:read", header: map[string]any{"kid": "nope"}}))
	refused("EdDSA header on the ES256 key", forge(t, a, "EdDSA", a.es.ID))
	refused("alg none", unsigned(t, "none"))
	refused("alg HS256", hmacToken(t))
	refused("signature of another key", otherKeyToken(t, a))
	refused("no token", "")

	res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`)
	if res.Code != 401 || res.Header.Get("WWW-Authenticate") != challenge {
		t.Errorf("no Authorization: %d %q", res.Code, res.Header.Get("WWW-Authenticate"))
	}

	res = do(t, f, http.MethodPost, "/v1/notes/write", "application/json", `{"text":"hi"}`, bearer(a.mint(t, grant{scope: "openid notes:read"}))...)
	wantScope := `Bearer error="insufficient_scope", scope="openid notes:read notes:write", resource_metadata="` + testMetadata + `"`
	if res.Code != 403 || res.Body["error"] != "FORBIDDEN_INSUFFICIENT_SCOPE" || res.Header.Get("WWW-Authenticate") != wantScope {
		t.Errorf("missing scope: %d %s %q", res.Code, res.Raw, res.Header.Get("WWW-Authenticate"))
	}

	res = do(t, f, http.MethodPost, "/v1/whoami", "", "", bearer(a.mint(t, grant{scope: "notes:read notes:write"}))...)
	if res.Code != 401 || res.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("an action without scopes took an OAuth token: %d %s", res.Code, res.Raw)
	}

	res = do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, "Authorization", "user-web")
	if res.Code != 200 || res.Body["clientId"] != "" {
		t.Errorf("first-party token: %d %s", res.Code, res.Raw)
	}
}

// forge signs with key b under the header alg of another algorithm.
func forge(t testing.TB, a *authServer, alg, kid string) string {
	t.Helper()
	claims := jwt.MapClaims{"iss": testIssuer, "sub": testUser.String(), "aud": testResource, "client_id": "c",
		"scope": "notes:read", "exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "sid": testSession.String()}
	tok := jwt.NewWithClaims(jwt.GetSigningMethod(alg), claims)
	tok.Header["typ"], tok.Header["kid"] = "at+jwt", kid
	s, err := tok.SignedString(a.ed.Private)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testClaims() jwt.MapClaims {
	return jwt.MapClaims{"iss": testIssuer, "sub": testUser.String(), "aud": testResource, "client_id": "c",
		"scope": "notes:read", "exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "sid": testSession.String()}
}

func unsigned(t testing.TB, alg string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, testClaims())
	tok.Header["typ"], tok.Header["kid"], tok.Header["alg"] = "at+jwt", "ed-1", alg
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hmacToken(t testing.TB) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, testClaims())
	tok.Header["typ"], tok.Header["kid"] = "at+jwt", "ed-1"
	s, err := tok.SignedString([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func otherKeyToken(t testing.TB, a *authServer) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, testClaims())
	tok.Header["typ"], tok.Header["kid"] = "at+jwt", a.ed.ID
	s, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOAuthSessionsHook: with OAuthSessions, a token of an ended session
// is refused at once, before it expires, over HTTP and over MCP; an
// action's Spec.Reauth is checked on the session the hook reads, as for a
// first-party token.
func TestOAuthSessionsHook(t *testing.T) {
	a := newAuthServer(t)
	sessions := &liveSessions{ended: map[string]bool{}}
	f := newOAuthFramework(t, a, sessions)
	Register(f, noteAction{action.Spec{Name: "V1NotesSecret", Path: "/v1/notes/secret", Auth: action.Owner("user"),
		Reauth: action.ReauthLevel, Scopes: []string{"notes:read"}}})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	token := a.mint(t, grant{scope: "notes:read"})
	mcpToken := a.mint(t, grant{aud: testMCP, scope: "notes:read"})
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(token)...); res.Code != 200 {
		t.Fatalf("live session: %d %s", res.Code, res.Raw)
	}
	if res, body := postMCP(t, srv.URL, mcpToken, list); res.StatusCode != 200 {
		t.Fatalf("live session over MCP: %d %s", res.StatusCode, body)
	}
	if res := do(t, f, http.MethodPost, "/v1/notes/secret", "application/json", `{"text":"hi"}`, bearer(token)...); res.Code != 403 || res.Body["error"] != "FORBIDDEN" {
		t.Errorf("a second factor unused by the session: %d %s", res.Code, res.Raw)
	}
	sessions.mu.Lock()
	sessions.ended[testSession.String()] = true
	sessions.mu.Unlock()
	if res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(token)...); res.Code != 401 {
		t.Errorf("ended session: %d %s", res.Code, res.Raw)
	}
	if res, body := postMCP(t, srv.URL, mcpToken, list); res.StatusCode != 401 {
		t.Errorf("ended session over MCP: %d %s", res.StatusCode, body)
	}
}

// TestProtectedResourceMetadata: the RFC 9728 documents of the resource
// and of the MCP resource.
func TestProtectedResourceMetadata(t *testing.T) {
	a := newAuthServer(t)
	f := newOAuthFramework(t, a, nil)
	for path, want := range map[string]string{
		"/.well-known/oauth-protected-resource":     `{"resource":"https://notes.example.com","authorization_servers":["https://id.example.com"],"scopes_supported":["notes:read","notes:write"],"bearer_methods_supported":["header"],"resource_name":"Notes"}`,
		"/.well-known/oauth-protected-resource/mcp": `{"resource":"https://notes.example.com/mcp","authorization_servers":["https://id.example.com"],"scopes_supported":["notes:read","notes:write"],"bearer_methods_supported":["header"],"resource_name":"Notes"}`,
	} {
		res := do(t, f, http.MethodGet, path, "", "")
		if res.Code != 200 || res.Raw != want || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %s %v", path, res.Code, res.Raw, res.Header)
		}
	}
}

// TestRegisterRefusesScopesAndTools: scopes or a tool where §20 forbids
// them, and bad tool names, are declaration errors.
func TestRegisterRefusesScopesAndTools(t *testing.T) {
	a := newAuthServer(t)
	tool := func(name string) *action.Tool { return &action.Tool{Name: name, Description: "d"} }
	cases := map[string]struct {
		spec action.Spec
		want string
	}{
		"sensitive":       {action.Spec{Name: "V1NotesWipe", Path: "/v1/notes/wipe", Auth: action.Owner("user"), Reauth: action.ReauthRecent, Scopes: []string{"notes:write"}}, "sensitive"},
		"sensitive tool":  {action.Spec{Name: "V1NotesWipe", Path: "/v1/notes/wipe", Auth: action.Owner("user"), Reauth: action.ReauthFactor, Scopes: []string{"x"}, Tool: tool("wipe")}, "sensitive"},
		"oauth path":      {action.Spec{Name: "V1OAuthApps", Path: "/v1/users/oauth/apps", Auth: action.Owner("user"), Scopes: []string{"apps"}}, "/v1/users/oauth/"},
		"oauth path tool": {action.Spec{Name: "V1OAuthApps", Path: "/v1/users/oauth/apps", Auth: action.Public, Tool: tool("apps")}, "/v1/users/oauth/"},
		"bad tool name":   {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Owner("user"), Scopes: []string{"notes:read"}, Tool: tool("List-Notes")}, "tool name"},
		"long tool name":  {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Public, Tool: tool(strings.Repeat("a", 65))}, "tool name"},
		"taken tool name": {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Owner("user"), Scopes: []string{"notes:read"}, Tool: tool("read_note")}, "is taken"},
		"public scopes":   {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Public, Scopes: []string{"notes:read"}}, "only an Owner"},
		"bad scope":       {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Owner("user"), Scopes: []string{"notes read"}}, "malformed"},
		"owner tool":      {action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Owner("user"), Tool: tool("list_notes")}, "needs Scopes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := newOAuthFramework(t, a, nil)
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), c.want) {
					t.Errorf("%s: panic %v, want one saying %q", c.spec.Name, p, c.want)
				}
			}()
			Register(f, noteAction{c.spec})
		})
	}
	f := newOAuthFramework(t, a, nil)
	Register(f, noteAction{action.Spec{Name: "V1NotesList", Path: "/v1/notes/list", Auth: action.Owner("user"),
		Reauth: action.ReauthLevel, Scopes: []string{"notes:read"}, Tool: tool("list_notes")}})
}

// TestOpenAPIOAuthSecurity: the document declares the oauth2 scheme with
// the authorization server's endpoints and every declared scope, and a
// scoped operation takes either the first-party scheme or oauth2 with its
// scopes; the document stays valid OpenAPI 3.1.
func TestOpenAPIOAuthSecurity(t *testing.T) {
	a := newAuthServer(t)
	f := newOAuthFramework(t, a, nil)
	raw, err := f.OpenAPI(OpenAPIInfo{Title: "Notes"})
	if err != nil {
		t.Fatal(err)
	}
	openapitest.Validate(t, raw)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"oauth2","description":"An OAuth access token of https://id.example.com for the resource https://notes.example.com, sent as \"Authorization: Bearer \u003ctoken\u003e\"; a token lacking a scope the operation needs is refused with 403 FORBIDDEN_INSUFFICIENT_SCOPE.","flows":{"authorizationCode":{"authorizationUrl":"https://id.example.com/oauth2/authorize","tokenUrl":"https://id.example.com/oauth2/token","scopes":{"notes:read":"Calls V1NotesRead.","notes:write":"Calls V1NotesWrite."}}}}`
	if got := compactJSON(t, doc.Components.SecuritySchemes["oauth2"]); got != want {
		t.Errorf("oauth2 scheme:\n%s\nwant\n%s", got, want)
	}
	for path, want := range map[string]string{
		"/v1/notes/read":  `[{"jwt-user":[]},{"oauth2":["notes:read"]}]`,
		"/v1/notes/write": `[{"jwt-user":[]},{"oauth2":["notes:write"]}]`,
		"/v1/whoami":      `[{"jwt-user":[]}]`,
	} {
		for _, m := range []string{"get", "post"} {
			var op struct {
				Security  json.RawMessage            `json:"security"`
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(doc.Paths[path][m], &op); err != nil {
				t.Fatal(err)
			}
			if got := compactJSON(t, op.Security); got != want {
				t.Errorf("%s %s security %s, want %s", m, path, got, want)
			}
			if scoped := path != "/v1/whoami"; strings.Contains(string(op.Responses["403"]), "FORBIDDEN_INSUFFICIENT_SCOPE") != scoped {
				t.Errorf("%s %s: 403 %s", m, path, op.Responses["403"])
			}
		}
	}
}

func compactJSON(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDiscoverOAuth: a service configured from its authorization server's
// metadata (RFC 8414) verifies that server's tokens with the key set the
// metadata names; metadata naming another issuer is refused.
func TestDiscoverOAuth(t *testing.T) {
	a := newAuthServer(t)
	var issuer string
	claimed := ""
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": orDefault(claimed, issuer), "jwks_uri": a.jwks.URL + "/keys",
			"authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token"})
	}))
	t.Cleanup(meta.Close)
	issuer = meta.URL
	cfg, err := DiscoverOAuth(context.Background(), nil, issuer)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resource = testResource
	f := newTestFramework(t, Config{OAuth: cfg})
	Register(f, readNote)
	res := do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(a.mint(t, grant{iss: issuer, scope: "notes:read"}))...)
	if res.Code != 200 {
		t.Errorf("discovered issuer's token: %d %s", res.Code, res.Raw)
	}
	res = do(t, f, http.MethodPost, "/v1/notes/read", "application/json", `{"text":"hi"}`, bearer(a.mint(t, grant{scope: "notes:read"}))...)
	if res.Code != 401 {
		t.Errorf("another issuer's token: %d %s", res.Code, res.Raw)
	}
	if cfg.AuthorizationEndpoint != issuer+"/authorize" || cfg.TokenEndpoint != issuer+"/token" {
		t.Errorf("endpoints %s %s", cfg.AuthorizationEndpoint, cfg.TokenEndpoint)
	}
	claimed = "https://evil.example.com"
	if _, err := DiscoverOAuth(context.Background(), nil, issuer); err == nil {
		t.Error("metadata of another issuer was accepted")
	}
}
