package openapitest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test to collect its failures, which end the
// calling goroutine like the real ones.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) {
	r.failures = append(r.failures, fmt.Sprint(args...))
	r.FailNow()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
	r.FailNow()
}
func (r *recorder) FailNow() { runtime.Goexit() }

// failures runs Validate on doc and returns what it reported.
func failures(t *testing.T, doc string) string {
	metaSchema(t) // node missing: skip or fail here, not in the recorder
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Validate(r, []byte(doc))
	}()
	<-done
	return strings.Join(r.failures, "\n")
}

func TestValidate(t *testing.T) {
	const info = `"info":{"title":"t","version":"1"}`
	for _, tc := range []struct {
		name, doc, want string // want: "" for a valid document
	}{
		{"valid", `{"openapi":"3.1.0",` + info + `,"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}},"components":{"schemas":{"A":{"type":["string","null"]}}}}`, ""},
		{"not JSON", `{"openapi":`, "not JSON"},
		{"OpenAPI 3.0", `{"openapi":"3.0.3",` + info + `,"paths":{},"components":{"schemas":{"A":{"type":"string"}}}}`, "not a valid OpenAPI 3.1 document"},
		{"no info", `{"openapi":"3.1.0","paths":{},"components":{"schemas":{"A":{"type":"string"}}}}`, "info"},
		{"response without description", `{"openapi":"3.1.0",` + info + `,"paths":{"/a":{"get":{"responses":{"200":{}}}}},"components":{"schemas":{"A":{"type":"string"}}}}`, "description"},
		{"bad type", `{"openapi":"3.1.0",` + info + `,"paths":{},"components":{"schemas":{"A":{"type":"strin"}}}}`, "schema at /components/schemas/A"},
		{"bad required", `{"openapi":"3.1.0",` + info + `,"paths":{},"components":{"schemas":{"A":{"type":"object","required":"a"}}}}`, "schema at /components/schemas/A"},
		{"dangling ref", `{"openapi":"3.1.0",` + info + `,"paths":{},"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"}}}}`, "schema at /components/schemas/A"},
		{"no schema", `{"openapi":"3.1.0",` + info + `,"paths":{}}`, "holds no schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(t, tc.doc)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("Validate reported %q, want a report containing %q", got, tc.want)
			}
		})
	}
}

const answersDoc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/things/{id}": {
      "get": {"responses": {
        "200": {"description": "a thing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
        "204": {"description": "nothing"},
        "4XX": {"$ref": "#/components/responses/Error"}
      }}
    },
    "/things/new": {
      "get": {"responses": {"default": {"description": "any", "content": {"text/*": {}}}}}
    }
  },
  "components": {
    "schemas": {
      "Thing": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
    },
    "responses": {
      "Error": {
        "description": "an error",
        "headers": {"Retry-After": {"required": true, "schema": {"type": "integer"}}},
        "content": {"application/json": {"schema": {"type": "object", "required": ["error"]}}}
      }
    }
  }
}`

func TestResponse(t *testing.T) {
	v := NewValidator(t, []byte(answersDoc))
	json := map[string][]string{"Content-Type": {"application/json; charset=utf-8"}}
	withRetry := map[string][]string{"content-type": {"application/json"}, "retry-after": {"1"}}
	for _, tc := range []struct {
		name, method, path string
		status             int
		header             map[string][]string
		body, want         string // want: "" for an answer the document describes
	}{
		{"described", "GET", "/things/7", 200, json, `{"id":"7"}`, ""},
		{"wrong body", "GET", "/things/7", 200, json, `{"id":7}`, "at '/id' [S#/components/schemas/Thing/properties/id/type]: got number, want string"},
		{"missing property", "GET", "/things/7", 200, json, `{}`, "does not match"},
		{"not JSON", "GET", "/things/7", 200, json, `{"id":`, "not JSON"},
		{"undocumented type", "GET", "/things/7", 200, map[string][]string{"Content-Type": {"text/html"}}, `<p>`, `content type "text/html" is not documented`},
		{"undocumented status", "GET", "/things/7", 500, json, `{}`, "does not document status 500"},
		{"range through a reference", "GET", "/things/7", 429, withRetry, `{"error":"x"}`, ""},
		{"required header", "GET", "/things/7", 404, json, `{"error":"x"}`, "required header Retry-After is missing"},
		{"referenced schema", "GET", "/things/7", 404, withRetry, `{}`, "does not match /components/responses/Error/content/application~1json/schema"},
		{"no content", "GET", "/things/7", 204, nil, ``, ""},
		{"body where none is documented", "GET", "/things/7", 204, json, `{}`, "documented without content"},
		{"exact path before a template", "GET", "/things/new", 200, map[string][]string{"Content-Type": {"text/plain"}}, `hi`, ""},
		{"unknown path", "GET", "/others/7", 200, json, `{"id":"7"}`, "no path of the document matches /others/7"},
		{"too deep a path", "GET", "/things/7/parts", 200, json, `{"id":"7"}`, "no path"},
		{"undocumented method", "POST", "/things/7", 200, json, `{"id":"7"}`, "POST /things/{id} is not documented"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(v.Response(tc.method, tc.path, tc.status, tc.header, []byte(tc.body)), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("Response reported %q, want a report containing %q", got, tc.want)
			}
		})
	}
}
