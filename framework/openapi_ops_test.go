package framework_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/internal/openapitest"
)

// opsOwner is a user action for app clients whose result may answer 202.
type opsOwner struct{}

type opsOwnerArgs struct {
	Title string `arg:"title" validate:"required,max=10"`
}

type opsOwnerResult struct {
	JobID string `json:"jobId,omitempty"`
}

func (*opsOwnerResult) StatusCode() int { return http.StatusAccepted }

func (opsOwner) Spec() action.Spec {
	return action.Spec{Name: "V1Owner", Path: "/v1/things/own", Auth: action.Owner("user"), Clients: []action.Client{action.App},
		Status: http.StatusCreated, Errors: []errorcodes.Code{testUserExists, testPostNotFound}}
}

func (opsOwner) Run(context.Context, *action.Request, *opsOwnerArgs) (*opsOwnerResult, error) {
	return &opsOwnerResult{}, nil
}

// Two codes of an application, for the documents' error answers (the
// framework's own catalog renders them by their IDs).
const (
	testPostNotFound errorcodes.Code = "POST_NOT_FOUND 404 post.not_found"
	testUserExists   errorcodes.Code = "USER_BAD_REQUEST_USER_ALREADY_EXISTS 400 user.already_exists"
)

// opsLoggedOut is an admin action for logged-out callers.
type opsLoggedOut struct{}

func (opsLoggedOut) Spec() action.Spec {
	return action.Spec{Name: "V1Out", Path: "/v1/things/out", Auth: action.LoggedOut("admin"), Errors: []errorcodes.Code{errorcodes.ServiceBusy}}
}

func (opsLoggedOut) Run(context.Context, *action.Request, *struct{}) (*toyResult, error) {
	return &toyResult{}, nil
}

func TestOpenAPIOperations(t *testing.T) {
	doc := generate(t, func(f *framework.Framework) {
		framework.Register(f, opsOwner{})
		framework.Register(f, opsLoggedOut{})
		framework.Register(f, Greet{})
		f.Handle(http.MethodGet, "/health", http.NotFoundHandler())
	}, framework.OpenAPIInfo{
		Errors: []errorcodes.Code{errorcodes.TooManyRequests},
		Routes: []framework.RouteDoc{{Path: "/health", Methods: []string{"GET", "HEAD"}, Responses: map[int]framework.ResponseDoc{
			200: {Description: "Alive.", Schema: framework.Schema{"type": "object"}},
			503: {Codes: []errorcodes.Code{errorcodes.ServiceUnavailable}},
		}}},
	})
	ids := map[string]bool{}
	for _, path := range openapitest.Keys(doc["paths"]) {
		for _, m := range openapitest.Keys(openapitest.At(doc, "paths", path)) {
			id, _ := openapitest.At(doc, "paths", path, m, "operationId").(string)
			if id == "" || ids[id] {
				t.Errorf("%s %s: operationId %q is empty or taken", m, path, id)
			}
			ids[id] = true
		}
	}
	for _, tc := range []struct {
		path, name, security string
		responses            []string
	}{
		{"/v1/things/own", "V1Owner", `[{"jwt-user":[]}]`, []string{"201", "202", "400", "401", "404", "429", "500", "503"}},
		{"/v1/things/out", "V1Out", `[]`, []string{"200", "400", "401", "429", "500", "503"}},
		{"/v1/greet", "V1Greet", `[]`, []string{"200", "400", "429", "500", "503"}},
	} {
		if got := openapitest.Keys(openapitest.At(doc, "paths", tc.path)); !slices.Equal(got, openapitest.Operations) {
			t.Errorf("%s: methods %v", tc.path, got)
		}
		for _, m := range openapitest.Operations {
			op := openapitest.At(doc, "paths", tc.path, m)
			want := tc.name
			if m != "post" {
				want += "_" + m
			}
			if got := openapitest.At(op, "operationId"); got != want {
				t.Errorf("%s %s: operationId %v, want %s", m, tc.path, got, want)
			}
			if got := asJSON(t, openapitest.At(op, "security")); got != tc.security {
				t.Errorf("%s %s: security %s, want %s", m, tc.path, got, tc.security)
			}
			if got := openapitest.Keys(openapitest.At(op, "responses")); !slices.Equal(got, tc.responses) {
				t.Errorf("%s %s: responses %v, want %v", m, tc.path, got, tc.responses)
			}
			_, hasBody := openapitest.At(op, "requestBody").(map[string]any)
			if body := m != "get" && m != "head" && tc.name != "V1Out"; hasBody != body {
				t.Errorf("%s %s: requestBody %v, want %v", m, tc.path, hasBody, body)
			}
			for _, st := range tc.responses {
				if content := openapitest.At(op, "responses", st, "content"); (m == "head") != (content == nil && openapitest.At(op, "responses", st, "$ref") == nil) {
					t.Errorf("%s %s: response %s has content %v", m, tc.path, st, content)
				}
			}
		}
	}
	for name, owner := range map[string]string{"jwt-user": "user", "jwt-admin": "admin"} {
		s := openapitest.At(doc, "components", "securitySchemes", name)
		if openapitest.At(s, "type") != "apiKey" || openapitest.At(s, "in") != "header" || openapitest.At(s, "name") != "Authorization" ||
			!strings.Contains(openapitest.At(s, "description").(string), `"jwt-`+owner+` <token>"`) {
			t.Errorf("security scheme %s: %s", name, asJSON(t, s))
		}
	}
	grouped := openapitest.At(doc, "components", "responses", "V1Owner.400", "content", "application/json", "schema", "allOf", 1, "properties")
	if got := asJSON(t, grouped); got != `{"error":{"enum":["BAD_REQUEST_INVALID_ARGUMENTS","USER_BAD_REQUEST_USER_ALREADY_EXISTS"]},"status":{"const":400}}` {
		t.Errorf("grouped 400: %s", got)
	}
	if got := openapitest.At(doc, "paths", "/v1/things/own", "get", "responses", "400", "$ref"); got != "#/components/responses/V1Owner.400" {
		t.Errorf("400 of V1Owner_get: %v", got)
	}
	// Every action may answer SERVICE_UNAVAILABLE (a dependency is down),
	// so V1Out's SERVICE_BUSY shares the 503 answer with it.
	for _, code := range []string{"V1Out.503", "SERVICE_UNAVAILABLE", "TOO_MANY_REQUESTS"} {
		if openapitest.At(doc, "components", "responses", code, "headers", "Retry-After") == nil {
			t.Errorf("%s has no Retry-After header", code)
		}
	}
	if d := openapitest.At(doc, "paths", "/v1/things/own", "get", "description").(string); !strings.Contains(d, "client of type app") {
		t.Errorf("V1Owner_get description: %s", d)
	}
	health := openapitest.At(doc, "paths", "/health")
	if got := openapitest.Keys(health); !slices.Equal(got, []string{"get", "head"}) || openapitest.At(health, "get", "operationId") != "health" ||
		openapitest.At(health, "head", "operationId") != "health_head" || openapitest.At(health, "get", "responses", "503", "$ref") != "#/components/responses/SERVICE_UNAVAILABLE" {
		t.Errorf("/health: %s", asJSON(t, health))
	}
}

func asJSON(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
