package framework

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/actionkit/actionkit/action"
)

// Conventions are the rules of the wire that belong to an authentication
// scheme rather than to the framework: which client types exist, whether
// a request presents a credential, and how the OpenAPI document describes
// it. An Authenticator declares them by implementing Conventional; one
// that does not gets DefaultConventions.
type Conventions struct {
	// Clients are the values the X-Client header may take, lowercase; the
	// first is assumed when the header is absent, any other value is 400
	// BAD_REQUEST_INVALID_ARGUMENTS, and Register refuses a Spec.Clients
	// naming another.
	Clients []action.Client
	// Presents reports whether r presents a credential. The framework asks
	// the authenticator only then; otherwise the request is anonymous.
	Presents func(r *http.Request) bool
	// Security describes, for the OpenAPI document, how a caller of owner
	// type owner presents its credential.
	Security func(owner action.OwnerType) SecurityScheme
}

// SecurityScheme is an OpenAPI security scheme, with the name it is
// declared under and Usage, the short form the operation descriptions
// quote ("Authorization: Bearer <token>").
type SecurityScheme struct {
	Name         string
	Type         string // apiKey or http
	Scheme       string // with http: bearer
	BearerFormat string // with http bearer: a hint such as JWT
	In           string // with apiKey: header, query or cookie
	Header       string // with apiKey: the header's name
	Description  string
	Usage        string
}

// Conventional is implemented by an Authenticator that sets its own
// Conventions.
type Conventional interface {
	Conventions() Conventions
}

// defaultClients are the client types of DefaultConventions; with them, a
// wrong X-Client keeps its own translated message ("must be web or app").
var defaultClients = []action.Client{action.Web, action.App}

// DefaultConventions are actionkit's own: the client types web (the
// default) and app, a credential in the Authorization header, and for
// each owner type the scheme "jwt-<type>" ("Authorization: jwt-user
// <token>").
func DefaultConventions() Conventions {
	return Conventions{
		Clients:  slices.Clone(defaultClients),
		Presents: func(r *http.Request) bool { return r.Header.Get("Authorization") != "" },
		Security: func(t action.OwnerType) SecurityScheme {
			name := t.Scheme()
			return SecurityScheme{
				Name: name, Type: "apiKey", In: "header", Header: "Authorization",
				Description: fmt.Sprintf("An access token of owner type %s, sent with its scheme: the header value is \"%s <token>\".", t, name),
				Usage:       "Authorization: " + name + " <token>",
			}
		},
	}
}

// conventionsOf returns the conventions of a, completed with the defaults
// where a leaves a part unset. It panics on a client type that is empty,
// not lowercase, or given twice: a programming error.
func conventionsOf(a Authenticator) Conventions {
	def := DefaultConventions()
	c, ok := a.(Conventional)
	if !ok {
		return def
	}
	got := c.Conventions()
	if got.Clients == nil {
		got.Clients = def.Clients
	}
	if got.Presents == nil {
		got.Presents = def.Presents
	}
	if got.Security == nil {
		got.Security = def.Security
	}
	for i, cl := range got.Clients {
		if cl == "" || !platformRe.MatchString(string(cl)) || slices.Contains(got.Clients[:i], cl) {
			panic(fmt.Sprintf("framework: client type %q must be 1 to 32 of a-z, 0-9, _ and -, and given once", cl))
		}
	}
	return got
}
