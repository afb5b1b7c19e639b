package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/internal/openapitest"
)

// appActions registers the server's actions on a framework built like the
// API role's, without connecting to anything, and describes them.
func appActions(t testing.TB, env map[string]string) []framework.Descriptor {
	t.Helper()
	cfg, err := loadEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	a, err := compose(cfg, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	fw := framework.New(framework.Config{Catalog: a.catalog, Rules: validationRules(a), Mods: v1.Mods(a.catalog),
		Reauthentication: a.reauthentication()})
	a.registerActions(fw, nil)
	return fw.Actions()
}

// documentedCodes lists the error codes a response documents, following
// its reference to a shared response.
func documentedCodes(doc, resp any) []string {
	if ref, ok := openapitest.At(resp, "$ref").(string); ok {
		resp = openapitest.At(doc, "components", "responses", strings.TrimPrefix(ref, "#/components/responses/"))
	}
	var ids []string
	for _, id := range openapitest.At(resp, "content", "application/json", "schema", "allOf", 1, "properties", "error", "enum").([]any) {
		ids = append(ids, id.(string))
	}
	return ids
}

func TestOpenAPIDocumentsEveryAction(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	c := s.client()
	r := c.call(http.MethodGet, "/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("got %d: %s", r.Status, r.Raw)
	}
	if ct, cc := r.Header.Get("Content-Type"), r.Header.Get("Cache-Control"); !strings.HasPrefix(ct, "application/json") || cc != "public, max-age=300" {
		t.Errorf("Content-Type %q, Cache-Control %q", ct, cc)
	}
	if h := c.call(http.MethodHead, "/openapi.json", nil); h.Status != 200 || h.Raw != "" {
		t.Errorf("HEAD: got %d with %d bytes", h.Status, len(h.Raw))
	}
	openapitest.Validate(t, []byte(r.Raw))
	doc := map[string]any(r.Body)
	actions := appActions(t, env)
	if len(actions) < 13 {
		t.Fatalf("only %d actions registered", len(actions))
	}
	for _, d := range actions {
		t.Run(d.Spec.Name, func(t *testing.T) { checkActionDocumented(t, doc, d) })
	}
	for path := range doc["paths"].(map[string]any) {
		if strings.HasPrefix(path, "/v") && !slices.ContainsFunc(actions, func(d framework.Descriptor) bool { return d.Spec.Path == path }) {
			t.Errorf("%s is documented but no action has it", path)
		}
	}
	for _, path := range []string{"/health", "/ready", "/metrics", "/openapi.json", jwksPath} {
		if openapitest.At(doc, "paths", path, "get", "responses", "200") == nil {
			t.Errorf("%s is not documented", path)
		}
	}
	publish := openapitest.At(doc, "paths", "/v1/posts/publish", "post", "responses")
	if openapitest.At(publish, "200") == nil || openapitest.At(publish, "202") == nil {
		t.Errorf("V1Publish documents %v, want 200 and 202", openapitest.Keys(publish))
	}
	register := openapitest.At(doc, "components", "schemas", "V1RegisterArguments", "properties")
	for name, want := range map[string]string{
		"password": `{"format":"password","maxLength":128,"minLength":12,"type":"string"}`,
		"email":    `{"format":"email","maxLength":254,"type":"string"}`,
	} {
		for _, schema := range []any{openapitest.At(register, name), queryParam(doc, "/v1/users/register", name)} {
			got := schema.(map[string]any)
			delete(got, "description")
			if raw, _ := json.Marshal(got); string(raw) != want {
				t.Errorf("V1Register %s: got %s, want %s", name, raw, want)
			}
		}
	}
	if req := openapitest.At(doc, "components", "schemas", "V1RegisterArguments", "required"); !slices.Equal(toStrings(req), []string{"email", "password"}) {
		t.Errorf("V1Register requires %v", req)
	}
}

func checkActionDocumented(t *testing.T, doc map[string]any, d framework.Descriptor) {
	item := openapitest.At(doc, "paths", d.Spec.Path)
	if got := openapitest.Keys(item); !slices.Equal(got, openapitest.Operations) {
		t.Fatalf("%s has methods %v", d.Spec.Path, got)
	}
	security := "[]"
	if d.Spec.Auth.Kind == action.KindOptional {
		security = `[{},{"` + d.Spec.Auth.Owner.Scheme() + `":[]}]`
	}
	if d.Spec.Auth.Kind == action.KindOwner {
		security = `[{"` + d.Spec.Auth.Owner.Scheme() + `":[]}]`
		if openapitest.At(doc, "components", "securitySchemes", d.Spec.Auth.Owner.Scheme(), "name") != "Authorization" {
			t.Errorf("no security scheme %s", d.Spec.Auth.Owner.Scheme())
		}
	}
	codes := map[int][]string{}
	for _, c := range append(d.Spec.Errors, errorcodes.BadRequestInvalidArguments, errorcodes.TooManyRequests, errorcodes.InternalServerError) {
		codes[c.Status()] = append(codes[c.Status()], c.ID())
	}
	if d.Spec.Auth.Kind != action.KindPublic {
		codes[401] = append(codes[401], errorcodes.Unauthorized.ID())
	}
	for _, m := range framework.Methods {
		op := openapitest.At(item, strings.ToLower(m))
		id := d.Spec.Name
		if m != http.MethodPost {
			id += "_" + strings.ToLower(m)
		}
		if openapitest.At(op, "operationId") != id || openapitest.At(op, "summary") != d.Spec.Summary || d.Spec.Summary == "" {
			t.Errorf("%s: operationId %v, summary %v", m, openapitest.At(op, "operationId"), openapitest.At(op, "summary"))
		}
		if raw, _ := json.Marshal(openapitest.At(op, "security")); string(raw) != security {
			t.Errorf("%s: security %s, want %s", m, raw, security)
		}
		success := strconv.Itoa(max(d.Spec.Status, 200))
		if openapitest.At(op, "responses", success) == nil {
			t.Errorf("%s: no %s response", m, success)
		}
		if m == http.MethodHead {
			continue
		}
		for status, ids := range codes {
			got := documentedCodes(doc, openapitest.At(op, "responses", strconv.Itoa(status)))
			for _, id := range ids {
				if !slices.Contains(got, id) {
					t.Errorf("%s: %d documents %v, missing %s", m, status, got, id)
				}
			}
		}
		if m == http.MethodGet {
			for _, a := range d.Args {
				if queryParam(doc, d.Spec.Path, a.Name) == nil {
					t.Errorf("GET: argument %s is not a query parameter", a.Name)
				}
			}
		}
	}
}

// queryParam returns the schema of the GET query parameter name of path.
func queryParam(doc map[string]any, path, name string) any {
	params, _ := openapitest.At(doc, "paths", path, "get", "parameters").([]any)
	for _, p := range params {
		if openapitest.At(p, "in") == "query" && openapitest.At(p, "name") == name {
			return openapitest.At(p, "schema")
		}
	}
	return nil
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	slices.Sort(out)
	return out
}

// documentCheck reads the API document the server of c serves and returns
// a check that an answer r to method and path has the status given and
// matches the document.
func documentCheck(t *testing.T, c *client) func(method, path string, r *apiResponse, status int) {
	t.Helper()
	v := openapitest.NewValidator(t, []byte(c.call(http.MethodGet, "/openapi.json", nil).Raw))
	check := func(method, path string, r *apiResponse, status int) {
		t.Helper()
		if r.Status != status {
			t.Fatalf("%s %s: got %d, want %d: %s", method, path, r.Status, status, r.Raw)
		}
		for _, problem := range v.Response(method, path, r.Status, r.Header, []byte(r.Raw)) {
			t.Errorf("%s %s: %s", method, path, problem)
		}
	}
	return check
}

// TestOpenAPIDescribesRealAnswers checks answers of the real server against
// the document it serves.
func TestOpenAPIDescribesRealAnswers(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	check := documentCheck(t, c)
	u := register(t, c, "app")
	check(http.MethodPost, "/v1/users/register", u.res, 201)
	again := map[string]any{"email": u.email, "password": strongPassword}
	check(http.MethodPost, "/v1/users/register", s.client().call(http.MethodPost, "/v1/users/register", again), 400)
	check(http.MethodPost, "/v1/users/register", s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": "x"}), 400)
	check(http.MethodGet, "/v1/users/read", u.read(t), 200)
	check(http.MethodGet, "/v1/users/read", s.client().call(http.MethodGet, "/v1/users/read", nil), 401)
	check(http.MethodPost, "/v1/users/login", s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword + "x"}), 400)
	check(http.MethodPost, "/v1/users/refresh", s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": u.refresh}, "X-Client", "app"), 200)
	create := u.c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "Documented"}, u.auth()...)
	check(http.MethodPost, "/v1/posts/create", create, 201)
	id := create.obj("post")["id"].(string)
	check(http.MethodGet, "/v1/posts/publish", u.c.callArgs(http.MethodGet, "/v1/posts/publish", map[string]any{"postId": id}, u.auth()...), 200)
	later := createPost(t, u, "Later")
	check(http.MethodPost, "/v1/posts/publish", u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": later, "async": true}, u.auth()...), 202)
	check(http.MethodDelete, "/v1/admins/logout", s.client().call(http.MethodDelete, "/v1/admins/logout", nil), 401)
	check(http.MethodGet, "/health", c.call(http.MethodGet, "/health", nil), 200)
	check(http.MethodGet, "/ready", c.call(http.MethodGet, "/ready", nil), 200)
}
