package main

import (
	"os"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestEcho: the README's action answers on any method, coerces "2" to an
// int and names each bad argument.
func TestEcho(t *testing.T) {
	api := actiontest.New(t, framework.Config{})
	framework.Register(api.Framework, Echo{})
	res := api.Call("GET", "/v1/echo", actiontest.Args{"text": " hi ", "times": "2"}).WantOK(t)
	if got := res.String("text"); got != "hihi" {
		t.Errorf("text = %q, want hihi", got)
	}
	res = api.Call("POST", "/v1/echo", actiontest.Args{"times": "9"}).WantError(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if fields, _ := res.Body["fields"].(map[string]any); fields["text"] == nil || fields["times"] == nil {
		t.Errorf("fields = %v, want text and times named", res.Body["fields"])
	}
}

// TestREADMEShowsThisProgram: the first Go block of the README is a verbatim
// part of this file, so the example there compiles and runs as shown.
func TestREADMEShowsThisProgram(t *testing.T) {
	var text [2]string
	for i, name := range []string{"../../README.md", "main.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text[i] = string(b)
	}
	readme, src := text[0], text[1]
	_, rest, ok := strings.Cut(readme, "\n```go\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed || strings.Count(block, "\n") < 15 {
		t.Fatalf("README.md has no Go block of 15 lines or more")
	}
	if !strings.Contains(src, block) {
		t.Errorf("the README's first Go block is not a part of examples/echo/main.go:\n%s", block)
	}
}
