package actiontest_test

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// Whoami is an action only a logged-in "member" may call.
type Whoami struct{}

type WhoamiArgs struct {
	Shout bool `arg:"shout"`
}

type WhoamiResult struct {
	ID     string `json:"id"`
	Client string `json:"client"`
	Shout  bool   `json:"shout"`
}

func (Whoami) Spec() action.Spec {
	return action.Spec{Name: "V1Whoami", Path: "/v1/whoami", Auth: action.Owner("member"),
		Errors: []errorcodes.Code{errorcodes.NotFound}}
}

func (Whoami) Run(_ context.Context, req *action.Request, in *WhoamiArgs) (*WhoamiResult, error) {
	return &WhoamiResult{ID: req.Caller.ID.String(), Client: string(req.Caller.Client), Shout: in.Shout}, nil
}

// exampleT stands in for the *testing.T of a real test.
type exampleT struct{}

func (exampleT) Helper()                           {}
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

var t exampleT

// A unit test of an action: register it on an API, call it anonymously and
// as a caller of the test's making; "shout" arrives as the string "true"
// in the query and is coerced to a bool.
func Example() {
	api := actiontest.New(t, framework.Config{})
	framework.Register(api.Framework, Whoami{})

	res := api.Call("GET", "/v1/whoami", nil)
	fmt.Println(res.Status, res.Code())

	member := &action.Caller{Type: "member", ID: uuid.MustParse("0192f3c4-0000-7000-8000-000000000001"), Client: action.App}
	res = api.As(member).Call("GET", "/v1/whoami", actiontest.Args{"shout": "true"})
	fmt.Println(res.Status, res.String("id"), res.String("client"), res.Body["shout"])
	// Output:
	// 401 UNAUTHORIZED
	// 200 0192f3c4-0000-7000-8000-000000000001 app true
}

// Arguments that do not fit the schema are answered by the framework
// before the action runs, with the field named.
func ExampleAPI_Call_invalidArguments() {
	api := actiontest.New(t, framework.Config{})
	framework.Register(api.Framework, Whoami{})
	member := &action.Caller{Type: "member", ID: uuid.New(), Client: action.Web}

	res := api.As(member).Call("POST", "/v1/whoami", actiontest.Args{"shout": "loudly"})
	fmt.Println(res.Status, res.Code(), res.Body["fields"])
	// Output:
	// 400 BAD_REQUEST_INVALID_ARGUMENTS map[shout:must be true or false]
}
