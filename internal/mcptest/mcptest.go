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
	dir := sockettest.NodePackage(t, "client")
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", string(raw))
	cmd.Dir = dir
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcptest: node client.mjs: %v", err)
	}
	var out Outcome
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("mcptest: the client printed %q: %v", stdout, err)
	}
	return out
}
