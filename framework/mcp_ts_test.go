package framework

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/mcptest"
)

// TestMCPTypeScriptClient: the official MCP TypeScript client connects
// with an access token, lists the tools with their schemas, calls one
// (structuredContent), gets invalid arguments and an action's error as
// tool errors with the coded error, meets the 403 step-up for a tool
// whose scope the token lacks, and cannot connect without a token.
func TestMCPTypeScriptClient(t *testing.T) {
	a, f, srv := newMCPServer(t)
	out := mcptest.Run(t, mcptest.Plan{URL: srv.URL + "/mcp", Token: a.mint(t, grant{aud: testMCP, scope: "notes:read"}), Calls: []mcptest.Call{
		{Name: "read_note", Arguments: map[string]any{"text": "hello", "count": 2}},
		{Name: "read_note", Arguments: map[string]any{"count": 9}},
		{Name: "read_note", Arguments: map[string]any{"text": "missing"}},
		{Name: "write_note", Arguments: map[string]any{"text": "x"}},
		{Name: "read_note", Arguments: map[string]any{"text": "after"}},
	}})
	if !out.Connected || out.Error != nil {
		t.Fatalf("connect: %+v", out.Error)
	}
	if out.Server["name"] != "Notes" || len(out.Tools) != 2 {
		t.Errorf("server %v, tools %v", out.Server, out.Tools)
	}
	raw, err := f.OpenAPI(OpenAPIInfo{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, tool := range out.Tools {
		got, _ := json.Marshal(tool["inputSchema"])
		want := compactJSON(t, doc.Components.Schemas[map[any]string{"read_note": "V1NotesReadArguments", "write_note": "V1NotesWriteArguments"}[tool["name"]]])
		if string(got) != want {
			t.Errorf("tool %v: inputSchema %s, want %s", tool["name"], got, want)
		}
	}
	if len(out.Calls) != 5 {
		t.Fatalf("calls %+v", out.Calls)
	}
	ok := out.Calls[0].Result
	if ok == nil || ok.IsError || ok.StructuredContent["text"] != "hello" || ok.StructuredContent["userId"] != testUser.String() ||
		len(ok.Content) != 1 || !strings.Contains(fmt.Sprint(ok.Content[0]["text"]), `"text":"hello"`) {
		t.Errorf("call: %+v", out.Calls[0])
	}
	for i, code := range map[int]string{1: "BAD_REQUEST_INVALID_ARGUMENTS", 2: "POST_NOT_FOUND"} {
		if r := out.Calls[i].Result; r == nil || !r.IsError || r.StructuredContent["error"] != code {
			t.Errorf("call %d: %+v, want the tool error %s", i, out.Calls[i], code)
		}
	}
	t.Logf("step-up refusal as the client saw it: %+v", out.Calls[3].Error)
	if e := out.Calls[3].Error; e == nil || fmt.Sprint(e.Code) != "403" || !strings.Contains(e.Message, "FORBIDDEN_INSUFFICIENT_SCOPE") {
		t.Errorf("missing scope: %+v %+v, want the 403 step-up", out.Calls[3].Result, e)
	}
	if r := out.Calls[4].Result; r == nil || r.IsError {
		t.Errorf("the session after a step-up refusal: %+v", out.Calls[4])
	}

	anon := mcptest.Run(t, mcptest.Plan{URL: srv.URL + "/mcp"})
	t.Logf("connection without a token: %+v", anon.Error)
	if anon.Connected || anon.Error == nil || fmt.Sprint(anon.Error.Code) != "401" {
		t.Errorf("connected without a token: %+v", anon)
	}
}
