package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The MCP comparison's server: the OAuth provider on, its issuer (and the
// resource of the HTTP side; the MCP side's is this followed by /mcp). The
// host is never dialled: the bench reaches the server on its loopback port,
// and PUBLIC_URL must be https in production.
const (
	mcpPublicURL = "https://bench.actionkit.invalid"
	mcpRedirect  = "http://127.0.0.1/callback"
)

// mcpSettings returns env with the OAuth provider and its MCP endpoint on:
// EdDSA tokens (the provider signs with a key pair), dynamic registration
// for the bench's client, and a sign-in page of its own named (production
// serves no demo page; the bench approves through the interaction API).
func mcpSettings(env []string) []string {
	for _, kv := range [][2]string{{"ACCESS_TOKEN_ALG", "EdDSA"}, {"OAUTH_PROVIDER", "true"},
		{"PUBLIC_URL", mcpPublicURL}, {"OAUTH_INTERACTION_URL", mcpPublicURL + "/signin"},
		{"OAUTH_DYNAMIC_REGISTRATION", "true"}, {"MCP_PATH", "/mcp"}} {
		env = withSetting(env, kv[0], kv[1])
	}
	return env
}

// compareMCP measures, at concurrency c, the read of the user's own
// account by this tool's virtual users over HTTP (GET /v1/users/read with
// an OAuth access token for PUBLIC_URL) and as the MCP tool read_account
// (a tools/call to /mcp with a token for PUBLIC_URL/mcp), on one server
// started for this with the OAuth provider on, in alternating slices. Both
// sides run the same action through the same pipeline; the MCP side adds
// the JSON-RPC envelope, the SDK's dispatch and the in-process request.
func (b *benchRun) compareMCP(ctx context.Context, c int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "mcp", Via: "http", Concurrency: c},
		{Scenario: "read", Target: "server", Series: "mcp", Via: "mcp", Concurrency: c}}
	t, stop, err := b.startTwin(ctx, mcpSettings(b.env), "server-mcp.log")
	if err != nil {
		b.failSides(labels, fmt.Errorf("start the server with the OAuth provider: %w", err))
		return
	}
	defer stop()
	t.pool = newUserPool(b.t.prefix+"-mcp", t.base) // EdDSA tokens, to approve with
	users, err := t.pool.ensure(ctx, c)
	if err != nil {
		b.failSides(labels, err)
		return
	}
	httpTokens, mcpTokens, err := mcpGrants(ctx, t.base, users)
	if err != nil {
		b.failSides(labels, fmt.Errorf("OAuth grants: %w", err))
		return
	}
	var sides [2]side
	for i, op := range []opFunc{opBearerRead(httpTokens), opToolRead(mcpTokens)} {
		client := newClient(t.base, c)
		defer client.CloseIdleConnections()
		workers := make([]*worker, c)
		for j := range workers {
			workers[j] = newWorker(j, t.base, client)
			workers[j].user = users[j]
		}
		sides[i] = side{load: &goSlicer{workers: workers, op: op, pid: t.pid}, label: labels[i]}
	}
	runs := b.compare(ctx, sides, b.cfg.mcpSlices)
	if q, ok := mcpRatio(runs[0], runs[1]); ok {
		fmt.Printf("read at %d on one server: HTTP %s req/s, MCP tool call %s req/s: MCP/HTTP %.2f\n",
			c, fmtRate(runs[0].ReqPerSec), fmtRate(runs[1].ReqPerSec), q)
	}
}

// mcpRatio is the MCP side's rate over the HTTP side's, when both were
// measured.
func mcpRatio(httpRun, mcpRun *Result) (float64, bool) {
	if httpRun == nil || mcpRun == nil || httpRun.Error != "" || mcpRun.Error != "" || httpRun.ReqPerSec <= 0 {
		return 0, false
	}
	return mcpRun.ReqPerSec / httpRun.ReqPerSec, true
}

// opBearerRead reads the user's account over HTTP with the worker's OAuth
// access token.
func opBearerRead(tokens []string) opFunc {
	return func(ctx context.Context, w *worker) error {
		_, err := w.call(ctx, "read", http.MethodGet, "/v1/users/read", nil, "Authorization", "Bearer "+tokens[w.id])
		return err
	}
}

// toolCall is the JSON-RPC request of the read_account tool.
var toolCall = map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
	"params": map[string]any{"name": "read_account", "arguments": map[string]any{}}}

// opToolRead calls the MCP tool read_account with the worker's access
// token for the MCP resource; a result with isError is a failure.
func opToolRead(tokens []string) opFunc {
	return func(ctx context.Context, w *worker) error {
		a, err := w.call(ctx, "tool", http.MethodPost, "/mcp", toolCall, "Authorization", "Bearer "+tokens[w.id],
			"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18")
		if err == nil && (!bytes.Contains(a.body, []byte(`"structuredContent"`)) || bytes.Contains(a.body, []byte(`"isError":true`))) {
			err = fmt.Errorf("tool: the result is not the account: %.200s", a.body)
		}
		return err
	}
}

// mcpGrants registers a public client and runs, for every user, two code
// flows with PKCE (authorize, approve through the interaction API with
// the request's cookie, token): a token of scope account:read for
// PUBLIC_URL and one for PUBLIC_URL/mcp.
func mcpGrants(ctx context.Context, base string, users []*user) (httpTokens, mcpTokens []string, err error) {
	hc := &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	body := map[string]any{"client_name": "load bench", "redirect_uris": []string{mcpRedirect}, "token_endpoint_auth_method": "none"}
	if err := postJSON(ctx, hc, base+"/oauth2/register", body, nil, http.StatusCreated, &reg); err != nil {
		return nil, nil, fmt.Errorf("register: %w", err)
	}
	for _, u := range users {
		for _, resource := range []string{mcpPublicURL, mcpPublicURL + "/mcp"} {
			tok, err := codeFlow(ctx, hc, base, reg.ClientID, u, resource)
			if err != nil {
				return nil, nil, err
			}
			if resource == mcpPublicURL {
				httpTokens = append(httpTokens, tok)
			} else {
				mcpTokens = append(mcpTokens, tok)
			}
		}
	}
	return httpTokens, mcpTokens, nil
}

// codeFlow runs one authorization of u for clientID and resource and
// returns the access token.
func codeFlow(ctx context.Context, hc *http.Client, base, clientID string, u *user, resource string) (string, error) {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	verifier := base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {clientID}, "redirect_uri": {mcpRedirect}, "response_type": {"code"}, "scope": {"account:read"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {resource}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/oauth2/authorize?"+q.Encode(), nil)
	if err != nil {
		return "", err
	}
	res, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil {
		return "", fmt.Errorf("authorize: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	requestID := loc.Query().Get("oauth_request")
	// The cookie binds the request to this client: it holds the requestId
	// and a secret the URL does not carry.
	var binding string
	for _, c := range res.Cookies() {
		if c.Name == "oauth-request" {
			binding = c.Value
		}
	}
	if requestID == "" || binding == "" {
		return "", fmt.Errorf("authorize: no oauth_request (%q) or no oauth-request cookie", loc)
	}
	var approved struct {
		RedirectTo string `json:"redirectTo"`
	}
	headers := []string{"Authorization", u.authorization(), "Cookie", "oauth-request=" + binding}
	if err := postJSON(ctx, hc, base+"/v1/users/oauth/approve", map[string]string{"requestId": requestID}, headers, http.StatusOK, &approved); err != nil {
		return "", fmt.Errorf("approve: %w", err)
	}
	back, err := url.Parse(approved.RedirectTo)
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {mcpRedirect},
		"code_verifier": {verifier}, "client_id": {clientID}, "resource": {resource}}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, base+"/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := doJSON(hc, req, http.StatusOK, &tok); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	if tok.AccessToken == "" {
		return "", errors.New("token: no access_token")
	}
	return tok.AccessToken, nil
}

// postJSON posts body as JSON with headers (name, value pairs) and decodes
// an answer of status want into out.
func postJSON(ctx context.Context, hc *http.Client, u string, body any, headers []string, want int, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return doJSON(hc, req, want, out)
}

// doJSON sends req and decodes an answer of status want into out.
func doJSON(hc *http.Client, req *http.Request, want int, out any) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != want {
		return fmt.Errorf("%d %.300s", res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// mcpPart shows the read over HTTP and as an MCP tool call on one server,
// in alternating slices.
func (rp *report) mcpPart() string {
	runs := rp.series("mcp")
	if len(runs) == 0 {
		return ""
	}
	rows := seriesRows(runs, func(r *Result) string {
		if r.Via == "mcp" {
			return "MCP tool call read_account"
		}
		return "HTTP GET /v1/users/read"
	})
	text := fmt.Sprintf("### An MCP tool call beside the same HTTP read\n\nA second server was started with the OAuth "+
		"provider on (`OAUTH_PROVIDER=true`, `ACCESS_TOKEN_ALG=EdDSA`), on the same database and Redis namespace. Each "+
		"virtual user holds two OAuth access tokens of scope `account:read` from real code flows: one for PUBLIC_URL, "+
		"read over HTTP, and one for PUBLIC_URL/mcp, read as the MCP tool `read_account` (a stateless `tools/call`). "+
		"Both run the same action through the same pipeline; the tool call reads the session twice (for the MCP request "+
		"and again for the action it runs in process) and adds the "+
		"JSON-RPC envelope, the MCP SDK's dispatch and the in-process request. %d alternating slices of %s each after a "+
		"warm-up, by this tool's virtual users; each row sums its side's slices.\n\n",
		rp.meta.MCPSlices, sliceLength(rp.meta.Duration, max(rp.meta.MCPSlices, 1)))
	out := text + table(append([]string{"read", "concurrency"}, runHeaders()...), rows)
	var httpRun, mcpRun *Result
	for _, r := range runs {
		if r.Via == "mcp" {
			mcpRun = r
		} else {
			httpRun = r
		}
	}
	if q, ok := mcpRatio(httpRun, mcpRun); ok {
		out += fmt.Sprintf("\n**MCP / HTTP: %.2f** (%s vs %s req/s).\n", q, fmtRate(mcpRun.ReqPerSec), fmtRate(httpRun.ReqPerSec))
	}
	return out + notMeasured(runs) + "\n"
}
