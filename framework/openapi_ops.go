package framework

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// openAPIGen builds one document.
type openAPIGen struct {
	f         *Framework
	info      OpenAPIInfo
	comp      oaComponents
	names     map[schemaKey]string // reflected types already in comp.Schemas
	argsNames map[string]string    // wire name to its arguments component
	taken     map[string]bool      // component schema names in use
	tags      map[string]bool
	err       error
}

func newOpenAPIGen(f *Framework, info OpenAPIInfo) *openAPIGen {
	return &openAPIGen{
		f: f, info: info,
		comp: oaComponents{
			Schemas:         map[string]Schema{"Error": errorSchema()},
			Responses:       map[string]oaResponse{},
			Parameters:      clientHeaderParams(f.conv.Clients),
			Headers:         standardHeaders(),
			SecuritySchemes: map[string]oaSecurityScheme{},
		},
		names: map[schemaKey]string{}, argsNames: map[string]string{}, taken: map[string]bool{"Error": true},
		tags: map[string]bool{},
	}
}

func (g *openAPIGen) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("framework: openapi: "+format, args...)
	}
}

func (g *openAPIGen) document() oaDocument {
	doc := oaDocument{
		OpenAPI: "3.1.0",
		Info:    oaInfo{Title: orDefault(g.info.Title, "API"), Version: orDefault(g.info.Version, "0"), Description: g.info.Description},
		Paths:   map[string]map[string]oaOperation{},
	}
	for _, d := range g.f.actions {
		item := map[string]oaOperation{}
		for _, m := range Methods {
			item[strings.ToLower(m)] = g.actionOperation(d, m)
		}
		doc.Paths[d.Spec.Path] = item
	}
	for _, rd := range g.info.Routes {
		if _, dup := doc.Paths[rd.Path]; dup {
			g.fail("route %s is documented twice", rd.Path)
		}
		doc.Paths[rd.Path] = g.routeItem(rd)
	}
	for _, name := range sortedKeys(g.tags) {
		doc.Tags = append(doc.Tags, oaTag{Name: name})
	}
	doc.Components = g.comp
	return doc
}

// actionOperation documents action d answering method m.
func (g *openAPIGen) actionOperation(d Descriptor, m string) oaOperation {
	s := d.Spec
	op := oaOperation{
		OperationID: operationID(s.Name, m),
		Summary:     s.Summary,
		Description: g.actionDescription(s, m),
		Tags:        []string{g.tag(actionTag(s.Path))},
		Parameters:  []oaParameter{{Ref: "#/components/parameters/X-Client"}, {Ref: "#/components/parameters/X-Platform"}},
		Responses:   g.actionResponses(d, m == http.MethodHead),
		Reauth:      reauthName(s.Reauth),
	}
	if m == http.MethodGet || m == http.MethodHead {
		for _, a := range d.Args {
			op.Parameters = append(op.Parameters, oaParameter{Name: a.Name, In: "query", Required: a.Required, Schema: g.argSchema(a, false)})
		}
	} else if len(d.Args) > 0 {
		ref := Schema{"$ref": "#/components/schemas/" + g.argsComponent(d)}
		op.RequestBody = &oaRequestBody{
			Description: "The arguments, as a JSON object or a form; the query string is read too, and the body wins on a clash.",
			Content:     map[string]oaMedia{"application/json": {Schema: ref}, "application/x-www-form-urlencoded": {Schema: ref}},
		}
	}
	security := []map[string][]string{}
	if s.Auth.Kind == action.KindOwner {
		security = append(security, map[string][]string{g.securityScheme(s.Auth.Owner): {}})
		if g.f.oauth != nil && len(s.Scopes) > 0 {
			security = append(security, map[string][]string{g.oauthScheme(): slices.Clone(s.Scopes)})
		}
	} else if s.Auth.Kind == action.KindOptional {
		security = append(security, map[string][]string{}, map[string][]string{g.securityScheme(s.Auth.Owner): {}})
	} else if s.Auth.Kind == action.KindLoggedOut {
		g.securityScheme(s.Auth.Owner)
	}
	op.Security = &security
	return op
}

func operationID(name, method string) string {
	if method == http.MethodPost {
		return name
	}
	return name + "_" + strings.ToLower(method)
}

// actionTag groups /v1/users/login under "users", and /v1/greet under "v1".
func actionTag(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > 2 {
		return segs[1]
	}
	return segs[0]
}

func (g *openAPIGen) tag(name string) string {
	g.tags[name] = true
	return name
}

// actionDescription states the framework's conventions for one operation.
func (g *openAPIGen) actionDescription(s action.Spec, m string) string {
	var b strings.Builder
	switch s.Auth.Kind {
	case action.KindOwner:
		fmt.Fprintf(&b, "Requires an access token of owner type %s (`%s`)", s.Auth.Owner, g.f.conv.Security(s.Auth.Owner).Usage)
		if len(s.Clients) > 0 {
			var cs []string
			for _, c := range s.Clients {
				cs = append(cs, string(c))
			}
			fmt.Fprintf(&b, " issued to a client of type %s", strings.Join(cs, " or "))
		}
		if g.f.oauth != nil && len(s.Scopes) > 0 {
			fmt.Fprintf(&b, ", or an OAuth access token (`Authorization: Bearer <token>`) whose scope holds %s", strings.Join(s.Scopes, " and "))
		}
		b.WriteString("; any other caller gets 401 UNAUTHORIZED.")
		g.reauthDescription(&b, s)
	case action.KindLoggedOut:
		fmt.Fprintf(&b, "The caller must be logged out: a valid `%s` access token is refused with 401 UNAUTHORIZED (a missing or invalid one is ignored).", g.f.conv.Security(s.Auth.Owner).Name)
	case action.KindOptional:
		fmt.Fprintf(&b, "Anyone may call it; a valid `%s` access token tells it who is calling (an invalid one gets 401 UNAUTHORIZED).", g.f.conv.Security(s.Auth.Owner).Name)
	default:
		b.WriteString("Anyone may call it; an Authorization header is ignored.")
	}
	switch m {
	case http.MethodGet, http.MethodHead:
		b.WriteString(" Arguments are read from the query string.")
	default:
		b.WriteString(" Arguments are read from the query string and from the body (a JSON object or a form); the body wins on a clash.")
	}
	b.WriteString(" Unknown arguments are ignored. The action answers GET, HEAD, POST, PUT, PATCH and DELETE alike; HEAD answers without a body.")
	b.WriteString(" Error messages are in the caller's locale, else the `lang` argument's, else Accept-Language's.")
	return b.String()
}

// oauthSchemeName names the security scheme of OAuth access tokens.
const oauthSchemeName = "oauth2"

// oauthScheme declares the scheme of the authorization server's access
// tokens, with every scope an action declares, and returns its name.
func (g *openAPIGen) oauthScheme() string {
	if _, done := g.comp.SecuritySchemes[oauthSchemeName]; done {
		return oauthSchemeName
	}
	cfg := g.f.oauth.cfg
	scopes := map[string]string{}
	for _, sc := range g.f.DeclaredScopes() {
		var names []string
		for _, d := range g.f.actions {
			if slices.Contains(d.Spec.Scopes, sc) {
				names = append(names, d.Spec.Name)
			}
		}
		scopes[sc] = "Calls " + strings.Join(names, ", ") + "."
	}
	g.comp.SecuritySchemes[oauthSchemeName] = oaSecurityScheme{
		Type: "oauth2",
		Description: fmt.Sprintf("An OAuth access token of %s for the resource %s, sent as \"Authorization: Bearer <token>\"; "+
			"a token lacking a scope the operation needs is refused with 403 FORBIDDEN_INSUFFICIENT_SCOPE.", cfg.Issuer, g.f.oauth.resource),
		Flows: &oaFlows{AuthorizationCode: &oaFlow{AuthorizationURL: cfg.AuthorizationEndpoint, TokenURL: cfg.TokenEndpoint, Scopes: scopes}},
	}
	return oauthSchemeName
}

// securityScheme declares the scheme of owner type t and returns its name.
func (g *openAPIGen) securityScheme(t action.OwnerType) string {
	sc := g.f.conv.Security(t)
	g.comp.SecuritySchemes[sc.Name] = oaSecurityScheme{
		Type: sc.Type, Scheme: sc.Scheme, BearerFormat: sc.BearerFormat, In: sc.In, Name: sc.Header,
		Description: sc.Description,
	}
	return sc.Name
}

// actionResponses lists the success and error answers of d.
func (g *openAPIGen) actionResponses(d Descriptor, head bool) map[string]oaResponse {
	out := map[string]oaResponse{}
	body := g.resultBody(d.Result)
	status := orDefault(d.Spec.Status, http.StatusOK)
	statuses := []int{status}
	if implementsStatusCoder(d.Result) && status != http.StatusAccepted {
		statuses = append(statuses, http.StatusAccepted)
	}
	for _, st := range statuses {
		desc := "Success."
		if st != status {
			desc = "Success, decided by the result: the work goes on in the background."
		}
		if redirectStatus(st) {
			r := g.response("Success: a redirect to the Location, without a body.", "", nil, head)
			r.Headers["Location"] = Schema{"description": "Where the client goes next.", "schema": Schema{"type": "string"}}
			out[strconv.Itoa(st)] = r
			continue
		}
		out[strconv.Itoa(st)] = g.response(desc, "application/json", body, head)
	}
	codes := append([]errorcodes.Code{errorcodes.BadRequestInvalidArguments}, d.Spec.Errors...)
	if d.Spec.Auth.Kind != action.KindPublic {
		codes = append(codes, errorcodes.Unauthorized)
	}
	if d.Spec.SameSite {
		codes = append(codes, errorcodes.Forbidden)
	}
	if g.f.oauth != nil && len(d.Spec.Scopes) > 0 {
		codes = append(codes, errorcodes.ForbiddenInsufficientScope)
	}
	if r := g.f.cfg.Reauthentication; d.Spec.Reauth != action.ReauthNone && r != nil {
		codes = append(codes, r.Code(d.Spec.Auth.Owner))
	}
	codes = append(codes, g.info.Errors...)
	codes = append(codes, errorcodes.ServiceUnavailable, errorcodes.InternalServerError)
	for st, group := range groupCodes(codes) {
		out[strconv.Itoa(st)] = g.errorResponse(d.Spec.Name, group, head)
	}
	return out
}

// groupCodes groups codes by status, each group sorted and without repeats.
func groupCodes(codes []errorcodes.Code) map[int][]errorcodes.Code {
	groups := map[int][]errorcodes.Code{}
	for _, c := range codes {
		if !slices.ContainsFunc(groups[c.Status()], func(o errorcodes.Code) bool { return o.ID() == c.ID() }) {
			groups[c.Status()] = append(groups[c.Status()], c)
		}
	}
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool { return g[i].ID() < g[j].ID() })
	}
	return groups
}

func (g *openAPIGen) response(desc, contentType string, body Schema, head bool) oaResponse {
	r := oaResponse{Description: desc, Headers: map[string]Schema{"X-Request-ID": {"$ref": "#/components/headers/X-Request-ID"}}}
	if body != nil && !head {
		r.Content = map[string]oaMedia{contentType: {Schema: body}}
	}
	return r
}

// errorResponse documents an error answer of owner carrying one of codes,
// which share a status, listing each code with its English message. The
// answer is a component shared by every method: named after the code when
// there is one, else after owner and the status. HEAD answers have no body.
func (g *openAPIGen) errorResponse(owner string, codes []errorcodes.Code, head bool) oaResponse {
	status := codes[0].Status()
	ids := make([]any, len(codes))
	var b strings.Builder
	fmt.Fprintf(&b, "%s. `error` is one of:", http.StatusText(status))
	for i, c := range codes {
		if c.Status() != status {
			g.fail("codes %s and %s are documented with one status", codes[0].ID(), c.ID())
		}
		ids[i] = c.ID()
		fmt.Fprintf(&b, "\n- `%s`: %s", c.ID(), g.f.catalog.Message(errorcodes.DefaultLocale, c))
	}
	parts := []any{
		Schema{"$ref": "#/components/schemas/Error"},
		Schema{"properties": Schema{"status": Schema{"const": status}, "error": Schema{"enum": ids}}},
	}
	for _, c := range codes {
		if details, ok := g.details(c); ok {
			parts = append(parts, Schema{"if": Schema{"properties": Schema{"error": Schema{"const": c.ID()}}}, "then": details})
		}
	}
	// Closed: a member no part documents is refused.
	body := Schema{"allOf": parts, "unevaluatedProperties": false}
	r := g.response(b.String(), "application/json", body, head)
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		r.Headers["Retry-After"] = Schema{"$ref": "#/components/headers/Retry-After"}
	}
	if head {
		return r
	}
	name := codes[0].ID()
	if len(codes) > 1 {
		name = owner + "." + strconv.Itoa(status)
	}
	g.comp.Responses[name] = r
	return oaResponse{Ref: "#/components/responses/" + name}
}

// details returns the schema of the members code c adds to the error
// body, if info.ErrorDetails documents any.
func (g *openAPIGen) details(c errorcodes.Code) (Schema, bool) {
	for code, v := range g.info.ErrorDetails {
		if code.ID() != c.ID() {
			continue
		}
		t := reflect.TypeOf(v)
		if t == nil || t.Kind() != reflect.Struct {
			g.fail("the error details of %s are not a struct", c.ID())
			return nil, false
		}
		for _, f := range jsonFields(t) {
			if _, taken := errorSchema()["properties"].(Schema)[f.name]; taken || f.name == "success" {
				g.fail("the error details of %s declare %q, a key of every error body", c.ID(), f.name)
			}
		}
		return g.structRef(t, false), true
	}
	return nil, false
}

// reauthDescription states an action's Spec.Reauth requirement.
func (g *openAPIGen) reauthDescription(b *strings.Builder, s action.Spec) {
	r := g.f.cfg.Reauthentication
	if s.Reauth == action.ReauthNone || r == nil {
		return
	}
	code := r.Code(s.Auth.Owner).ID()
	switch s.Reauth {
	case action.ReauthLevel:
		fmt.Fprintf(b, " When the owner has a second factor, the session must have used it; otherwise the answer is 403 %s.", code)
	case action.ReauthRecent:
		fmt.Fprintf(b, " Sensitive: the session's last interactive authentication must be at most %s old and, when the owner has a second factor, have used it; otherwise the answer is 403 %s.",
			r.MaxAge, code)
	case action.ReauthFactor:
		fmt.Fprintf(b, " Sensitive: the session's last interactive authentication must be at most %s old and, when the owner has a second factor, its last use of the second factor too (a password re-authentication is not enough); otherwise the answer is 403 %s.",
			r.MaxAge, code)
	}
}

// routeItem documents a plain route.
func (g *openAPIGen) routeItem(rd RouteDoc) map[string]oaOperation {
	if owner, ok := g.f.paths[rd.Path]; !ok || owner != "" {
		g.fail("route %s is not mounted with Handle", rd.Path)
	}
	base := orDefault(strings.Trim(strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(rd.Path), "_"), "root")
	item := map[string]oaOperation{}
	for _, m := range rd.Methods {
		if !slices.Contains(Methods, m) && m != http.MethodOptions {
			g.fail("route %s: unknown method %q", rd.Path, m)
		}
		op := oaOperation{OperationID: base, Summary: rd.Summary, Description: rd.Description, Responses: map[string]oaResponse{}}
		if m != http.MethodGet {
			op.OperationID = base + "_" + strings.ToLower(m)
		}
		for _, t := range rd.Tags {
			op.Tags = append(op.Tags, g.tag(t))
		}
		for st, resp := range rd.Responses {
			if len(resp.Codes) > 0 {
				if resp.Codes[0].Status() != st {
					g.fail("route %s: %s is documented under status %d", rd.Path, resp.Codes[0].ID(), st)
				}
				op.Responses[strconv.Itoa(st)] = g.errorResponse(base, resp.Codes, m == http.MethodHead)
				continue
			}
			op.Responses[strconv.Itoa(st)] = g.response(resp.Description, orDefault(resp.ContentType, "application/json"), resp.Schema, m == http.MethodHead)
		}
		security := []map[string][]string{}
		op.Security = &security
		item[strings.ToLower(m)] = op
	}
	return item
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
