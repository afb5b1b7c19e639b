package framework_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/internal/openapitest"
)

// sensitive is an owner action that needs a recent authentication.
type sensitive struct{}

func (sensitive) Spec() action.Spec {
	return action.Spec{Name: "V1Sensitive", Path: "/v1/things/sensitive", Auth: action.Owner("user"), Reauth: action.ReauthRecent,
		Errors: []errorcodes.Code{testUserExists}}
}

func (sensitive) Run(context.Context, *action.Request, *struct{}) (*toyResult, error) {
	return &toyResult{}, nil
}

type refusalDetails struct {
	Methods []string `json:"methods"`
}

// TestOpenAPIReauthAndDetails: a requirement shows as the extension
// x-reauthentication, its refusal is documented with its details, and
// error answers are closed, so an answer with undocumented members fails
// a check against the document.
func TestOpenAPIReauthAndDetails(t *testing.T) {
	f := framework.New(framework.Config{Reauthentication: &framework.Reauthentication{
		MaxAge: 600e9, Code: func(action.OwnerType) errorcodes.Code { return errorcodes.Forbidden },
	}})
	framework.Register(f, sensitive{})
	raw, err := f.OpenAPI(framework.OpenAPIInfo{ErrorDetails: map[errorcodes.Code]any{errorcodes.Forbidden: refusalDetails{}}})
	if err != nil {
		t.Fatal(err)
	}
	v := openapitest.NewValidator(t, raw)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	op := openapitest.At(doc, "paths", "/v1/things/sensitive", "post")
	if openapitest.At(op, "x-reauthentication") != "recent" || !strings.Contains(openapitest.At(op, "description").(string), "403 FORBIDDEN") {
		t.Errorf("operation: %v", op)
	}
	header := map[string][]string{"Content-Type": {"application/json"}, "X-Request-ID": {"r"}}
	refusal := `{"status":403,"success":false,"error":"FORBIDDEN","message":"m","requestId":"r","methods":["password"]}`
	for body, want := range map[string]bool{
		refusal: true,
		`{"status":403,"success":false,"error":"FORBIDDEN","message":"m","requestId":"r"}`:                                         false, // details missing
		`{"status":403,"success":false,"error":"FORBIDDEN","message":"m","requestId":"r","methods":[],"x":1}`:                      false, // undocumented member
		`{"status":400,"success":false,"error":"USER_BAD_REQUEST_USER_ALREADY_EXISTS","message":"m","requestId":"r","methods":[]}`: false,
	} {
		status := 403
		if strings.Contains(body, `"status":400`) {
			status = 400
		}
		if problems := v.Response("POST", "/v1/things/sensitive", status, header, []byte(body)); (len(problems) == 0) != want {
			t.Errorf("%s: problems %v, want valid %v", body, problems, want)
		}
	}
}
