// Command echo is the smallest complete actionkit service: one action,
// declared as a struct, registered and served. The README shows it.
//
//	go run ./examples/echo
//	curl -s 'localhost:8100/v1/echo?text=hi&times=2'
package main

import (
	"context"
	"log"
	"net/http"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/framework"
)

// Echo is an action: a struct with a spec and a typed handler.
type Echo struct{}

func (Echo) Spec() action.Spec {
	// Auth: action.Owner("user") would require a user's access token.
	return action.Spec{Name: "V1Echo", Path: "/v1/echo", Auth: action.Public}
}

// EchoArgs is the argument schema: query and body merged, coerced, validated.
type EchoArgs struct {
	Text  string `arg:"text" mod:"trim" validate:"required,max=64"`
	Times int    `arg:"times" default:"1" validate:"min=1,max=3"`
}

// EchoResult is the answer, flat beside "status" and "success".
type EchoResult struct {
	Text string `json:"text"`
}

func (Echo) Run(ctx context.Context, req *action.Request, in *EchoArgs) (*EchoResult, error) {
	return &EchoResult{Text: strings.Repeat(in.Text, in.Times)}, nil
}

func main() {
	f := framework.New(framework.Config{})
	framework.Register(f, Echo{})
	log.Fatal(http.ListenAndServe("localhost:8100", f))
}
