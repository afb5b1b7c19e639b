package framework

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Methods are the HTTP methods every action answers on.
var Methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Descriptor describes a registered action, for documentation generators.
type Descriptor struct {
	Spec   action.Spec
	Args   []ArgInfo
	Result reflect.Type
}

var (
	nameRe = regexp.MustCompile(`^V([1-9][0-9]*)[A-Z][A-Za-z0-9]*$`)
	pathRe = regexp.MustCompile(`^/v([1-9][0-9]*)(/[a-z0-9]+)+$`)
)

// Register mounts a on f for every method in Methods. It reflects over the
// argument and result types once, here, and panics on a declaration error:
// a malformed name or path, a version that differs between the two, a path
// already taken, an unknown tag, a result that declares "status" or
// "success", or Scopes or a Tool the action may not declare (on a
// sensitive action or under /v1/users/oauth/, a malformed or taken tool
// name).
func Register[I, O any](f *Framework, a action.Action[I, O]) {
	spec := a.Spec()
	checkSpec(spec, f.conv.Clients)
	checkReauthSpec(spec, f.cfg.Reauthentication)
	f.checkOAuthSpec(spec)
	if owner, taken := f.paths[spec.Path]; taken {
		panic(fmt.Sprintf("framework: %s: path %s is already taken by %q", spec.Name, spec.Path, owner))
	}
	for _, d := range f.actions {
		if d.Spec.Name == spec.Name {
			panic(fmt.Sprintf("framework: action %s is registered twice", spec.Name))
		}
	}
	rt := &route[I, O]{f: f, a: a, spec: spec, status: spec.Status}
	if rt.status == 0 {
		rt.status = http.StatusOK
	}
	rt.schema = compileSchema(reflect.TypeOf((*I)(nil)).Elem(), f.cfg.Rules, f.cfg.Mods)
	resultType := reflect.TypeOf((*O)(nil)).Elem()
	checkResult(spec.Name, resultType)
	rt.appends = ownAppender(resultType)
	if implementsRedirect(resultType) != redirectStatus(spec.Status) {
		panic(fmt.Sprintf("framework: %s: success status %d: a status that is not 2xx must be a redirect with a result implementing action.Redirect, and only such a result may have one",
			spec.Name, spec.Status))
	}
	f.paths[spec.Path] = spec.Name
	for _, m := range Methods {
		f.router.Handler(m, spec.Path, rt)
	}
	args := make([]ArgInfo, len(rt.schema.fields))
	for i, fl := range rt.schema.fields {
		args[i] = fl.ArgInfo
	}
	f.actions = append(f.actions, Descriptor{Spec: spec, Args: args, Result: resultType})
}

func checkSpec(s action.Spec, clients []action.Client) {
	nm := nameRe.FindStringSubmatch(s.Name)
	if nm == nil {
		panic(fmt.Sprintf("framework: action name %q must look like V1Login", s.Name))
	}
	pm := pathRe.FindStringSubmatch(s.Path)
	if pm == nil {
		panic(fmt.Sprintf("framework: %s: path %q must be lowercase, version first, like /v1/users/login", s.Name, s.Path))
	}
	if nm[1] != pm[1] {
		panic(fmt.Sprintf("framework: %s: the name's version differs from the path %s", s.Name, s.Path))
	}
	if s.Status != 0 && (s.Status < 200 || s.Status > 299) && !redirectStatus(s.Status) {
		panic(fmt.Sprintf("framework: %s: success status %d is not 2xx or a redirect", s.Name, s.Status))
	}
	if s.Auth.Kind != action.KindPublic && s.Auth.Owner == "" {
		panic(fmt.Sprintf("framework: %s: auth needs an owner type", s.Name))
	}
	for _, c := range s.Clients {
		if !slices.Contains(clients, c) {
			panic(fmt.Sprintf("framework: %s: unknown client %q", s.Name, c))
		}
	}
}

// redirectStatus reports the statuses of a redirect.
func redirectStatus(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// implementsRedirect reports whether *t implements action.Redirect.
func implementsRedirect(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(reflect.TypeOf((*action.Redirect)(nil)).Elem())
}

// ownAppender reports whether the result type t writes its own JSON: *t
// implements action.JSONAppender and no field t embeds does, whose method
// *t could have inherited without a word about t's other fields. A result
// that embeds an appender is encoded by encoding/json, even if it declares
// its own AppendJSON.
func ownAppender(t reflect.Type) bool {
	appender := reflect.TypeFor[action.JSONAppender]()
	if !reflect.PointerTo(t).Implements(appender) {
		return false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous && (f.Type.Implements(appender) || reflect.PointerTo(f.Type).Implements(appender)) {
			return false
		}
	}
	return true
}

// checkResult refuses results that are not structs or that would overwrite
// the body's own keys.
func checkResult(name string, t reflect.Type) {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("framework: %s: result %v must be a struct", name, t))
	}
	for _, f := range jsonFields(t) {
		if strings.EqualFold(f.name, "status") || strings.EqualFold(f.name, "success") {
			panic(fmt.Sprintf("framework: %s: result %v may not declare %q", name, t, f.name))
		}
	}
}

// route serves one action.
type route[I, O any] struct {
	f      *Framework
	a      action.Action[I, O]
	spec   action.Spec
	schema *schema
	status int
	// appends is set when the result writes its own JSON (ownAppender).
	appends bool
}

func (rt *route[I, O]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := rt.f
	st := stateOf(r.Context())
	st.action, st.route, st.logged = rt.spec.Name, rt.spec.Path, rt.schema.logged
	req := action.NewRequest(r.Cookie)
	req.ID, req.Action, req.IP, req.Received = st.id, rt.spec.Name, st.ip, st.start
	req.UserAgent = r.Header.Get("User-Agent")
	if rt.spec.SameSite && f.crossSite(r) {
		f.writeError(w, r, errorcodes.Forbidden.New(), nil)
		return
	}
	vals, perr := f.readArgs(r)
	if perr != nil {
		f.writeError(w, r, perr, nil)
		return
	}
	req.Locale = f.resolveLocale(nil, vals["lang"], r.Header.Get("Accept-Language"))
	st.locale = req.Locale
	if err := f.parseClientHeaders(r, req); err != nil {
		f.writeError(w, r, err, nil)
		return
	}
	if err := f.authorize(r, rt.spec, req); err != nil {
		f.writeError(w, r, err, nil)
		return
	}
	if req.Caller != nil {
		req.Locale = f.resolveLocale(req.Caller, vals["lang"], r.Header.Get("Accept-Language"))
		st.locale = req.Locale
	}
	if err := f.checkReauth(r.Context(), rt.spec, req.Caller); err != nil {
		f.writeError(w, r, err, nil)
		return
	}
	in := new(I)
	if errs := rt.schema.decode(vals, reflect.ValueOf(in).Elem()); errs != nil {
		f.writeError(w, r, errorcodes.BadRequestInvalidArguments.WithFields(errs), nil)
		return
	}
	out, err := rt.a.Run(r.Context(), req, in)
	if err != nil {
		f.writeError(w, r, err, req.Cookies())
		return
	}
	rt.respond(w, r, out, req)
}

func (rt *route[I, O]) respond(w http.ResponseWriter, r *http.Request, out *O, req *action.Request) {
	status := rt.status
	if redirectStatus(status) {
		loc := ""
		if out != nil {
			loc = any(out).(action.Redirect).Location()
		}
		rt.f.writeRedirect(w, r, status, loc, req.Cookies())
		return
	}
	var body any
	if out != nil {
		if sc, ok := any(out).(action.StatusCoder); ok && sc.StatusCode() != 0 {
			status = sc.StatusCode()
		}
		body = out
	}
	if err := rt.f.writeSuccess(w, r, status, body, rt.appends, req.Cookies()); err != nil {
		rt.f.writeError(w, r, fmt.Errorf("encode %s result: %w", rt.spec.Name, err), nil)
	}
}
