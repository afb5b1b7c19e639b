package framework_test

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validateOpenAPI fails t unless raw is a valid OpenAPI 3.1 document (by
// the OpenAPI Initiative's JSON Schema, through libopenapi-validator) whose
// every Schema Object is valid JSON Schema 2020-12 with resolvable refs.
func validateOpenAPI(t testing.TB, raw []byte) {
	t.Helper()
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("parse the document: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("build the validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s", e.Error())
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  at %s: %s", se.FieldPath, se.Reason)
			}
		}
		t.FailNow()
	}
	tree, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const base = "mem:///openapi.json"
	if err := c.AddResource(base, tree); err != nil {
		t.Fatalf("the document as a JSON Schema resource: %v", err)
	}
	n := 0
	for _, ptr := range schemaPointers("", tree) {
		n++
		if _, err := c.Compile(base + "#" + ptr); err != nil {
			t.Errorf("schema at %s: %v", ptr, err)
		}
	}
	if n == 0 {
		t.Fatal("the document holds no schema")
	}
}

// schemaPointers lists the JSON pointers of the Schema Objects of an
// OpenAPI document: those under a "schema" key and the component schemas.
func schemaPointers(at string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			switch {
			case k == "schema":
				out = append(out, p)
			case at == "/components/schemas":
				out = append(out, p)
			default:
				out = append(out, schemaPointers(p, sub)...)
			}
		}
	case []any:
		for i, sub := range v {
			out = append(out, schemaPointers(at+"/"+strconv.Itoa(i), sub)...)
		}
	}
	return out
}

// failRecorder is a testing.TB that records failures instead of failing.
type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Fatal(...any)          { r.FailNow() }
func (r *failRecorder) Fatalf(string, ...any) { r.FailNow() }
func (r *failRecorder) FailNow()              { r.failed = true; runtime.Goexit() }

// The validation is real: it refuses what OpenAPI 3.1 and JSON Schema
// 2020-12 refuse.
func TestOpenAPIValidatorCatchesErrors(t *testing.T) {
	const head = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},`
	for _, tc := range []struct {
		name, doc string
		valid     bool
	}{
		{"valid", head + `"components":{"schemas":{"A":{"type":["string","null"]}}}}`, true},
		{"no info", `{"openapi":"3.1.0","paths":{},"components":{"schemas":{"A":{"type":"string"}}}}`, false},
		{"bad operation", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{}}}}},"components":{"schemas":{"A":{"type":"string"}}}}`, false},
		{"bad type", head + `"components":{"schemas":{"A":{"type":"strin"}}}}`, false},
		{"bad required", head + `"components":{"schemas":{"A":{"type":"object","required":"a"}}}}`, false},
		{"dangling ref", head + `"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"}}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &failRecorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				validateOpenAPI(r, []byte(tc.doc))
			}()
			<-done
			if r.failed == tc.valid {
				t.Errorf("validation failed: %v, want %v", r.failed, !tc.valid)
			}
		})
	}
}
