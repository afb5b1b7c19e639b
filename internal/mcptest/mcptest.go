// Package mcptest drives the official MCP TypeScript client
// (@modelcontextprotocol/sdk, the npm package in client/) from Go tests,
// so that an MCP endpoint is proven against the client agents use.
package mcptest

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// Call is one tool call of a Plan.
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Plan is what the client does: connect to URL presenting Token (none
// when empty), list the tools, and make Calls in order.
type Plan struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	Calls []Call `json:"calls"`
}

// Failure is an error the client threw, with its code when it has one
// (an HTTP status, or a JSON-RPC error code).
type Failure struct {
	Message string `json:"message"`
	Code    any    `json:"code"`
}

// Outcome is what the client got.
type Outcome struct {
	Connected bool             `json:"connected"`
	Server    map[string]any   `json:"server"`
	Tools     []map[string]any `json:"tools"`
	Calls     []struct {
		Result *Result  `json:"result"`
		Error  *Failure `json:"error"`
	} `json:"calls"`
	Error *Failure `json:"error"`
}

// Result is a tool call's result as the client read it.
type Result struct {
	Content           []map[string]any `json:"content"`
	StructuredContent map[string]any   `json:"structuredContent"`
	IsError           bool             `json:"isError"`
}

// Run carries out p with the TypeScript client under node. Without node or
// npm the test is skipped, or fails with CI=true.
func Run(t testing.TB, p Plan) Outcome {
	t.Helper()
	var out Outcome
	runScript(t, "client.mjs", p, &out)
	return out
}

// OAuthPlan is what the client does through its own OAuth flow: start
// from nothing but URL, and approve each authorization request as the
// user whose first-party token (jwt-user) is UserToken, with the
// redirect URI RedirectURL; then list the tools and make Calls in order.
// Client and Tokens, when set, are what the client holds already (a
// registered client, an access token) instead of registering.
type OAuthPlan struct {
	URL         string         `json:"url"`
	UserToken   string         `json:"userToken"`
	RedirectURL string         `json:"redirectUrl"`
	Calls       []Call         `json:"calls"`
	Client      map[string]any `json:"client,omitempty"`
	Tokens      map[string]any `json:"tokens,omitempty"`
}

// Request is one HTTP request the client's SDK made.
type Request struct {
	Method          string `json:"method"`
	URL             string `json:"url"`
	Status          int    `json:"status"`
	WWWAuthenticate string `json:"wwwAuthenticate"`
}

// Authorization is one authorization request the SDK sent the user to,
// and where the approval sent the browser back.
type Authorization struct {
	URL        string `json:"url"`
	Status     int    `json:"status"`
	RedirectTo string `json:"redirectTo"`
}

// OAuthOutcome is what the client got through its OAuth flow.
type OAuthOutcome struct {
	Requests       []Request        `json:"requests"`
	Authorizations []Authorization  `json:"authorizations"`
	Client         map[string]any   `json:"client"`
	Tokens         map[string]any   `json:"tokens"`
	Connected      bool             `json:"connected"`
	Server         map[string]any   `json:"server"`
	Tools          []map[string]any `json:"tools"`
	Calls          []struct {
		Result *Result  `json:"result"`
		Error  *Failure `json:"error"`
		StepUp bool     `json:"stepUp"`
	} `json:"calls"`
	Error *Failure `json:"error"`
}

// RunOAuth carries out p with the TypeScript client and its OAuth flow
// under node. Without node or npm the test is skipped, or fails with
// CI=true.
func RunOAuth(t testing.TB, p OAuthPlan) OAuthOutcome {
	t.Helper()
	var out OAuthOutcome
	runScript(t, "oauth.mjs", p, &out)
	return out
}

// runScript runs the node script of the client package with the plan p
// as its argument and decodes what it prints into out.
func runScript(t testing.TB, script string, p, out any) {
	t.Helper()
	dir := sockettest.NodePackage(t, "client")
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, string(raw))
	cmd.Dir = dir
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcptest: node %s: %v", script, err)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("mcptest: the client printed %q: %v", stdout, err)
	}
}
