// Package openapitest checks OpenAPI documents in tests: against the
// OpenAPI 3.1 JSON Schema (through libopenapi-validator), and every Schema
// Object in them against JSON Schema 2020-12 with its references resolved.
package openapitest

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// NewValidator parses raw and returns a validator of the document and of
// requests and responses against it.
func NewValidator(t testing.TB, raw []byte) validator.Validator {
	t.Helper()
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("parse the document: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("build the validator: %v", errs)
	}
	return v
}

// Validate fails t unless raw is a valid OpenAPI 3.1 document whose every
// Schema Object is valid JSON Schema 2020-12 with resolvable references.
func Validate(t testing.TB, raw []byte) {
	t.Helper()
	if ok, verrs := NewValidator(t, raw).ValidateDocument(); !ok {
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
	pointers := SchemaPointers("", tree)
	if len(pointers) == 0 {
		t.Fatal("the document holds no schema")
	}
	for _, ptr := range pointers {
		if _, err := c.Compile(base + "#" + ptr); err != nil {
			t.Errorf("schema at %s: %v", ptr, err)
		}
	}
}

// SchemaPointers lists the JSON pointers of the Schema Objects of an
// OpenAPI document: those under a "schema" key and the component schemas.
func SchemaPointers(at string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			switch {
			case k == "schema", at == "/components/schemas":
				out = append(out, p)
			default:
				out = append(out, SchemaPointers(p, sub)...)
			}
		}
	case []any:
		for i, sub := range v {
			out = append(out, SchemaPointers(at+"/"+strconv.Itoa(i), sub)...)
		}
	}
	return out
}

// Operations lists, sorted, the operations every action's path item must
// have: the methods CONTRACT.md §5 says an action answers, written here
// once as the tests' independent expectation.
var Operations = []string{"delete", "get", "head", "patch", "post", "put"}

// At walks a decoded JSON document along keys (array indexes as ints); a
// missing step gives nil.
func At(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k < 0 || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// Keys lists the keys of a decoded JSON object, sorted (none for anything
// else).
func Keys(v any) []string {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
