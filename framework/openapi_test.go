package framework_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// A service documents its actions with the framework's OpenAPI generator:
// everything comes from the declarations.
func ExampleFramework_OpenAPI() {
	f := framework.New(framework.Config{})
	framework.Register(f, Greet{Greeting: "Hello"})
	raw, err := f.OpenAPI(framework.OpenAPIInfo{Title: "Greeter", Version: "1"})
	if err != nil {
		panic(err)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name   string         `json:"name"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	get := doc.Paths["/v1/greet"]["get"]
	fmt.Println(doc.OpenAPI, get.OperationID, doc.Paths["/v1/greet"]["post"].OperationID)
	for _, p := range get.Parameters[2:] {
		fmt.Println(p.Name, p.Schema)
	}
	fmt.Println(sortedKeys(get.Responses))
	// Output:
	// 3.1.0 V1Greet_get V1Greet
	// name map[description:modified before validation by: trim maxLength:32 type:string]
	// times map[default:1 maximum:3 minimum:1 type:integer]
	// [200 400 500 503]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toy is an action whose argument struct the tests swap, to see the
// document follow the declaration.
type toy[I any] struct{}

type toyResult struct {
	Text string `json:"text"`
}

func (toy[I]) Spec() action.Spec {
	return action.Spec{Name: "V1Toy", Path: "/v1/toys/make", Summary: "Make a toy", Auth: action.Public}
}

func (toy[I]) Run(context.Context, *action.Request, *I) (*toyResult, error) {
	return &toyResult{}, nil
}

type toyArgsBefore struct {
	Name string `arg:"name" mod:"trim" validate:"required,max=64"`
}

type toyArgsAfter struct {
	Name  string `arg:"name" mod:"trim" validate:"required,max=32"`
	Color string `arg:"color" validate:"required,oneof=red|blue"`
}

func generate(t testing.TB, register func(*framework.Framework), info framework.OpenAPIInfo) map[string]any {
	t.Helper()
	f := framework.New(framework.Config{})
	register(f)
	raw, err := f.OpenAPI(info)
	if err != nil {
		t.Fatal(err)
	}
	validateOpenAPI(t, raw)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestOpenAPIFollowsDeclarations(t *testing.T) {
	before := generate(t, func(f *framework.Framework) { framework.Register(f, toy[toyArgsBefore]{}) }, framework.OpenAPIInfo{})
	after := generate(t, func(f *framework.Framework) { framework.Register(f, toy[toyArgsAfter]{}) }, framework.OpenAPIInfo{})
	got := jsonDiff("", before, after)
	var want []string
	for _, m := range []string{"get", "head"} {
		p := "/paths/~1v1~1toys~1make/" + m + "/parameters/"
		want = append(want, p+"2/schema/maxLength: 64 -> 32", p+"3: <none> -> "+
			`{"in":"query","name":"color","required":true,"schema":{"enum":["red","blue"],"type":"string"}}`)
	}
	args := "/components/schemas/V1ToyArguments/"
	want = append(want,
		args+`properties/color: <none> -> {"enum":["red","blue"],"type":"string"}`,
		args+"properties/name/maxLength: 64 -> 32",
		args+`required/1: <none> -> "color"`)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("diff of the documents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// jsonDiff lists where two decoded JSON values differ, as JSON pointers.
func jsonDiff(at string, a, b any) []string {
	show := func(v any) string {
		if v == nil {
			return "<none>"
		}
		raw, _ := json.Marshal(v)
		return string(raw)
	}
	ma, aMap := a.(map[string]any)
	mb, bMap := b.(map[string]any)
	if aMap && bMap {
		var out []string
		for k := range ma {
			out = append(out, jsonDiff(at+"/"+strings.ReplaceAll(k, "/", "~1"), ma[k], mb[k])...)
		}
		for k := range mb {
			if _, ok := ma[k]; !ok {
				out = append(out, jsonDiff(at+"/"+strings.ReplaceAll(k, "/", "~1"), nil, mb[k])...)
			}
		}
		return out
	}
	sa, aSlice := a.([]any)
	sb, bSlice := b.([]any)
	if aSlice && bSlice {
		var out []string
		for i := 0; i < max(len(sa), len(sb)); i++ {
			var x, y any
			if i < len(sa) {
				x = sa[i]
			}
			if i < len(sb) {
				y = sb[i]
			}
			out = append(out, jsonDiff(at+"/"+strconv.Itoa(i), x, y)...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{at + ": " + show(a) + " -> " + show(b)}
}

func TestOpenAPIHandler(t *testing.T) {
	f := framework.New(framework.Config{})
	framework.Register(f, toy[toyArgsBefore]{})
	h := f.OpenAPIHandler(framework.OpenAPIInfo{Title: "Toys"})
	f.Handle(http.MethodGet, "/openapi.json", h)
	f.Handle(http.MethodHead, "/openapi.json", h)
	serve := func(method string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/openapi.json", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, r)
		return w
	}
	first := serve(http.MethodGet)
	if first.Code != 200 || first.Header().Get("Cache-Control") != "public, max-age=300" ||
		!strings.HasPrefix(first.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("got %d %v", first.Code, first.Header())
	}
	validateOpenAPI(t, first.Body.Bytes())
	// Generated once: an action registered later does not appear.
	framework.Register(f, Greet{})
	if again := serve(http.MethodGet); again.Body.String() != first.Body.String() {
		t.Error("the document changed after the first request")
	}
	if head := serve(http.MethodHead); head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != strconv.Itoa(first.Body.Len()) {
		t.Errorf("HEAD: got %d, %d bytes, Content-Length %s", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
	if nm := serve(http.MethodGet, "If-None-Match", first.Header().Get("ETag")); nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
		t.Errorf("If-None-Match: got %d with %d bytes, want 304", nm.Code, nm.Body.Len())
	}
}

func TestOpenAPIRefusesUnmountedRoutes(t *testing.T) {
	f := framework.New(framework.Config{})
	_, err := f.OpenAPI(framework.OpenAPIInfo{Routes: []framework.RouteDoc{{Path: "/nowhere", Methods: []string{"GET"}}}})
	if err == nil || !strings.Contains(err.Error(), "/nowhere") {
		t.Errorf("got %v, want an error naming /nowhere", err)
	}
	h := f.OpenAPIHandler(framework.OpenAPIInfo{Routes: []framework.RouteDoc{{Path: "/nowhere"}}})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if w.Code != 500 || !strings.Contains(w.Body.String(), errorcodes.InternalServerError.ID()) {
		t.Errorf("got %d %s, want 500 INTERNAL_SERVER_ERROR", w.Code, w.Body)
	}
}
