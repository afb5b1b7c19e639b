package framework

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/invopop/validation"
	"github.com/julienschmidt/httprouter"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Authenticator resolves the caller of a request. It returns (nil, nil) for
// an anonymous request, including one whose token is missing, malformed,
// expired or stale; an error only when it could not decide. The framework
// answers that error like an action's: SERVICE_UNAVAILABLE when it is marked
// by dependency.Unavailable (the database is unreachable), else
// INTERNAL_SERVER_ERROR.
//
// The framework asks it only about a request that presents a credential,
// by the authenticator's Conventions (DefaultConventions: an Authorization
// header), which also name the client types and the OpenAPI security
// schemes. needs says what the action needs read of the caller beyond who
// it is (its Assurance, for an action with a Spec.Reauth).
type Authenticator interface {
	Authenticate(ctx context.Context, r *http.Request, needs action.Needs) (*action.Caller, error)
}

// Observation is what the framework reports of each finished request.
type Observation struct {
	Action   string // wire name, or "" for non-action routes
	Route    string // the registered path, or "" when no route matched
	Method   string
	Status   int
	Duration time.Duration
	// Unavailable names the dependency (dependency.Error.Name) whose
	// outage the request was answered 503 SERVICE_UNAVAILABLE for, or "".
	Unavailable string
}

// Config configures a Framework. The zero value is usable: no
// authentication, English messages only, 1 MiB bodies.
type Config struct {
	// Logger receives access logs and internal errors; nil discards them.
	Logger *slog.Logger
	// Authenticator resolves callers; nil makes every request anonymous.
	Authenticator Authenticator
	// Catalog renders error messages; nil uses the built-in English one.
	Catalog *errorcodes.Catalog
	// MaxBodyBytes caps request bodies; 0 means 1 MiB.
	MaxBodyBytes int64
	// Rules are named validation rules usable in validate tags, such as
	// "password"; built-in names cannot be replaced.
	Rules map[string]validation.Rule
	// Mods are named string modifiers usable in mod tags, such as "locale".
	Mods map[string]func(string) string
	// CORSOrigins lists the origins allowed cross-origin access with
	// credentials. Empty means no cross-origin access.
	CORSOrigins []string
	// TrustProxy takes the client IP from X-Forwarded-For when the
	// connecting peer is a trusted proxy: the right-most hop that is not
	// one (see ClientIP).
	TrustProxy bool
	// TrustedProxies are the proxies whose X-Forwarded-For hops are
	// believed with TrustProxy; nil means DefaultTrustedProxies.
	TrustedProxies []netip.Prefix
	// SameSiteOrigins are origins, besides the request's own and
	// CORSOrigins, that actions declaring Spec.SameSite accept, such as the
	// origin of the server's public URL.
	SameSiteOrigins []string
	// Middleware wraps routing, innermost last. Middleware runs after the
	// request id is assigned and inside panic recovery, so it may use
	// ClientIP and WriteError.
	Middleware []func(http.Handler) http.Handler
	// Observe, when set, is called once per finished request.
	Observe func(Observation)
	// AccessLog logs every request at info level (errors are always logged).
	AccessLog bool
	// Stacks adds stack traces to the logs of panics (off in production).
	Stacks bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// UnavailableRetryAfter is the Retry-After of the 503 answered when a
	// dependency is unreachable; 0 means DefaultUnavailableRetryAfter.
	UnavailableRetryAfter time.Duration
	// Reauthentication configures the check of Spec.Reauth; Register
	// refuses an action declaring a requirement without it.
	Reauthentication *Reauthentication
	// OAuth makes the service an OAuth protected resource: actions that
	// declare Spec.Scopes accept the access tokens of its authorization
	// server, the metadata documents are served, and actions that declare
	// Spec.Tool are MCP tools at OAuth.MCPPath. Nil: none of it.
	OAuth *OAuth
}

// DefaultUnavailableRetryAfter is the Retry-After of an answer to a
// dependency outage: long enough that clients do not hammer a database
// that is restarting, short enough that they are back soon after it is.
const DefaultUnavailableRetryAfter = 5 * time.Second

// Framework serves registered actions. Build it with New, register actions
// with Register, and use it as an http.Handler.
type Framework struct {
	cfg       Config
	log       *slog.Logger
	catalog   *errorcodes.Catalog
	router    *httprouter.Router
	handler   http.Handler
	maxBody   int64
	cors      map[string]bool
	sameSite  map[string]bool
	proxies   []netip.Prefix
	paths     map[string]string
	actions   []Descriptor
	rules     map[string]validation.Rule
	requestID *idSource
	conv      Conventions
	oauth     *resourceServer
	mcp       *mcpEndpoint
}

var _ http.Handler = (*Framework)(nil)

// New returns a Framework with no actions.
func New(cfg Config) *Framework {
	f := &Framework{cfg: cfg, log: cfg.Logger, catalog: cfg.Catalog, maxBody: cfg.MaxBodyBytes}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.catalog == nil {
		c, err := errorcodes.NewCatalog([]string{errorcodes.DefaultLocale}, append(errorcodes.Framework(), errorcodes.Later()...))
		if err != nil {
			panic("framework: built-in catalog: " + err.Error())
		}
		f.catalog = c
	}
	if f.maxBody <= 0 {
		f.maxBody = 1 << 20
	}
	if f.cfg.Now == nil {
		f.cfg.Now = time.Now
	}
	if f.cfg.UnavailableRetryAfter <= 0 {
		f.cfg.UnavailableRetryAfter = DefaultUnavailableRetryAfter
	}
	f.cors = map[string]bool{}
	for _, o := range cfg.CORSOrigins {
		f.cors[o] = true
	}
	f.sameSite = map[string]bool{}
	for _, o := range cfg.SameSiteOrigins {
		f.sameSite[strings.ToLower(o)] = true
	}
	f.proxies = cfg.TrustedProxies
	if f.proxies == nil {
		f.proxies = DefaultTrustedProxies
	}
	f.paths = map[string]string{}
	f.requestID = newIDSource()
	f.conv = conventionsOf(cfg.Authenticator)
	f.router = httprouter.New()
	f.router.RedirectTrailingSlash = false
	f.router.RedirectFixedPath = false
	f.router.HandleMethodNotAllowed = true
	f.router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.WriteError(w, r, errorcodes.NotFound.New())
	})
	f.router.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.WriteError(w, r, errorcodes.MethodNotAllowed.New())
	})
	f.router.PanicHandler = nil
	var h http.Handler = f.router
	for i := len(cfg.Middleware) - 1; i >= 0; i-- {
		h = cfg.Middleware[i](h)
	}
	f.handler = h
	if cfg.OAuth != nil {
		f.oauth = newResourceServer(*cfg.OAuth)
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			f.Handle(m, ProtectedResourcePath, f.metadataHandler(f.oauth.resource, false))
			if f.oauth.mcpResource != "" {
				f.Handle(m, ProtectedResourcePath+f.oauth.cfg.MCPPath, f.metadataHandler(f.oauth.mcpResource, true))
			}
		}
		if f.oauth.mcpResource != "" {
			f.mcp = newMCPEndpoint(f)
			for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
				f.Handle(m, f.oauth.cfg.MCPPath, f.mcp)
			}
		}
	}
	return f
}

// Handle registers a plain HTTP handler, such as a probe, for one method and
// path. It shares request ids, panic recovery, CORS and the middleware with
// actions, and panics if the path is taken by an action.
func (f *Framework) Handle(method, path string, h http.Handler) {
	if owner, taken := f.paths[path]; taken && owner != "" {
		panic("framework: path " + path + " is taken by " + owner)
	}
	f.paths[path] = ""
	f.router.Handler(method, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := stateOf(r.Context()); st != nil {
			st.route = path
		}
		h.ServeHTTP(w, r)
	}))
}

// Catalog returns the catalog messages are rendered with.
func (f *Framework) Catalog() *errorcodes.Catalog { return f.catalog }

// Actions describes every registered action, in registration order.
func (f *Framework) Actions() []Descriptor { return append([]Descriptor(nil), f.actions...) }
