package framework_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// Greet is an action of a sibling service: a struct declaring its spec and
// a typed handler.
type Greet struct{ Greeting string }

// GreetArgs is its argument schema: one declaration per argument.
type GreetArgs struct {
	Name  string `arg:"name" mod:"trim" validate:"required,max=32"`
	Times int    `arg:"times" default:"1" validate:"min=1,max=3"`
}

// GreetResult becomes the flat success body beside status and success.
type GreetResult struct {
	Message string `json:"message"`
}

func (Greet) Spec() action.Spec {
	return action.Spec{Name: "V1Greet", Path: "/v1/greet", Auth: action.Public}
}

func (g Greet) Run(_ context.Context, _ *action.Request, in *GreetArgs) (*GreetResult, error) {
	if in.Name == "nobody" {
		return nil, errorcodes.NotFound.New()
	}
	return &GreetResult{Message: strings.Repeat(g.Greeting+", "+in.Name+"! ", in.Times)}, nil
}

// A sibling service declares an action and registers it; the framework
// serves it on every method, merges query and body, coerces "2" to an int,
// validates, and writes flat JSON.
func ExampleRegister() {
	f := framework.New(framework.Config{})
	framework.Register(f, Greet{Greeting: "Hello"})

	for _, target := range []string{"/v1/greet?name=Ada&times=2", "/v1/greet?times=9"} {
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		fmt.Println(w.Code, strings.Replace(w.Body.String(), w.Header().Get("X-Request-ID"), "<id>", 1))
	}
	// Output:
	// 200 {"status":200,"success":true,"message":"Hello, Ada! Hello, Ada! "}
	// 400 {"status":400,"success":false,"error":"BAD_REQUEST_INVALID_ARGUMENTS","message":"The request arguments are invalid: name: is required; times: must be at most 3","fields":{"name":"is required","times":"must be at most 3"},"requestId":"<id>"}
}
