package main

import (
	"slices"
	"strings"
	"testing"
)

// TestMCPPart: the MCP comparison's section lists both sides and their
// ratio, and only when the series was measured.
func TestMCPPart(t *testing.T) {
	meta, runs := sampleRuns()
	if md := renderMarkdown(meta, runs); strings.Contains(md, "MCP tool call") {
		t.Fatal("an MCP section without the series")
	}
	meta.MCPSlices = 10
	lat := Latency{P50: 1, P90: 2, P99: 5, Max: 9}
	runs = append(runs,
		&Result{Kind: "run", Scenario: "read", Target: "server", Series: "mcp", Via: "http", Concurrency: 64, ReqPerSec: 8000, Latency: lat},
		&Result{Kind: "run", Scenario: "read", Target: "server", Series: "mcp", Via: "mcp", Concurrency: 64, ReqPerSec: 4000, Latency: lat})
	md := renderMarkdown(meta, runs)
	for _, want := range []string{
		"### An MCP tool call beside the same HTTP read",
		"| HTTP GET /v1/users/read | 64 | 8,000 |",
		"| MCP tool call read_account | 64 | 4,000 |",
		"**MCP / HTTP: 0.50** (4,000 vs 8,000 req/s).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// TestMCPSettings: the comparison's server has the provider on with EdDSA
// tokens and an https PUBLIC_URL (required in production), each variable
// once.
func TestMCPSettings(t *testing.T) {
	env := mcpSettings(append(serverSettings("postgres://db", "redis://r", "ns"), "ACCESS_TOKEN_ALG=HS256"))
	for _, want := range []string{"OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PUBLIC_URL=" + mcpPublicURL, "OAUTH_DYNAMIC_REGISTRATION=true", "OAUTH_INTERACTION_URL=" + mcpPublicURL + "/signin", "APP_ENV=production"} {
		if !slices.Contains(env, want) {
			t.Errorf("settings %v lack %s", env, want)
		}
	}
	if slices.Contains(env, "ACCESS_TOKEN_ALG=HS256") {
		t.Errorf("settings keep HS256: %v", env)
	}
}
