// Package kiosk is a service that embeds the actionkit framework with an
// authentication scheme of its own: opaque tokens sent as
// "Authorization: Bearer <token>", its own owner type (operator) and its
// own client types (kiosk, the default, and cli). Nothing of the bundled
// server's conventions (jwt-<type> schemes, web and app clients) is used:
// the Authenticator declares its conventions and the framework follows
// them, in routing, in access rules and in the OpenAPI document.
package kiosk

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// Operator is the owner type of this service.
const Operator action.OwnerType = "operator"

// The client types of this service.
const (
	Kiosk action.Client = "kiosk"
	CLI   action.Client = "cli"
)

// Tokens authenticates operators by opaque bearer tokens, kept as SHA-256
// digests. A token is bound to one client type when it is issued.
type Tokens struct {
	mu     sync.RWMutex
	byHash map[[32]byte]grant
}

type grant struct {
	operator uuid.UUID
	client   action.Client
}

// NewTokens returns an empty token table.
func NewTokens() *Tokens { return &Tokens{byHash: map[[32]byte]grant{}} }

// Grant makes token a credential of operator for client.
func (t *Tokens) Grant(token string, operator uuid.UUID, client action.Client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byHash[sha256.Sum256([]byte(token))] = grant{operator: operator, client: client}
}

// Authenticate implements framework.Authenticator: a known bearer token is
// its operator; anything else is anonymous.
func (t *Tokens) Authenticate(_ context.Context, r *http.Request, _ action.Needs) (*action.Caller, error) {
	token, ok := bearer(r)
	if !ok {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(token))
	t.mu.RLock()
	g, found := t.byHash[sum]
	t.mu.RUnlock()
	// The lookup is by digest: its timing says nothing useful of the token.
	if !found {
		return nil, nil
	}
	return &action.Caller{Type: Operator, ID: g.operator, Client: g.client}, nil
}

// Conventions implements framework.Conventional.
func (t *Tokens) Conventions() framework.Conventions {
	return framework.Conventions{
		Clients: []action.Client{Kiosk, CLI},
		Presents: func(r *http.Request) bool {
			_, ok := bearer(r)
			return ok
		},
		Security: func(action.OwnerType) framework.SecurityScheme {
			return framework.SecurityScheme{
				Name: "bearer", Type: "http", Scheme: "bearer",
				Description: "An operator token issued by the kiosk service.",
				Usage:       "Authorization: Bearer <token>",
			}
		},
	}
}

// bearer reads the token of "Authorization: Bearer <token>" (the scheme
// in any case, RFC 9110, section 11.1).
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// Whoami answers the calling operator and its client type.
type Whoami struct{}

// WhoamiResult is the answer of Whoami.
type WhoamiResult struct {
	Operator string `json:"operator"`
	Client   string `json:"client"`
}

// Spec declares V1Whoami.
func (Whoami) Spec() action.Spec {
	return action.Spec{Name: "V1Whoami", Path: "/v1/whoami", Summary: "Who is calling", Auth: action.Owner(Operator)}
}

// Run answers the caller.
func (Whoami) Run(_ context.Context, req *action.Request, _ *struct{}) (*WhoamiResult, error) {
	return &WhoamiResult{Operator: req.Caller.ID.String(), Client: string(req.Caller.Client)}, nil
}

// OpenDrawer is an action only an operator at a kiosk may call.
type OpenDrawer struct{}

// OpenDrawerArgs are its arguments.
type OpenDrawerArgs struct {
	Drawer int `arg:"drawer" validate:"required,min=1,max=4"`
}

// OpenDrawerResult is its answer.
type OpenDrawerResult struct {
	Opened int `json:"opened"`
}

// Spec declares V1OpenDrawer.
func (OpenDrawer) Spec() action.Spec {
	return action.Spec{Name: "V1OpenDrawer", Path: "/v1/drawers/open", Summary: "Open a cash drawer",
		Auth: action.Owner(Operator), Clients: []action.Client{Kiosk}, Errors: []errorcodes.Code{errorcodes.Forbidden}}
}

// Run opens the drawer.
func (OpenDrawer) Run(_ context.Context, _ *action.Request, in *OpenDrawerArgs) (*OpenDrawerResult, error) {
	return &OpenDrawerResult{Opened: in.Drawer}, nil
}

// New returns the service's handler, authenticating with tokens.
func New(tokens *Tokens) *framework.Framework {
	f := framework.New(framework.Config{Authenticator: tokens})
	framework.Register(f, Whoami{})
	framework.Register(f, OpenDrawer{})
	f.Handle(http.MethodGet, "/openapi.json", f.OpenAPIHandler(framework.OpenAPIInfo{Title: "kiosk", Version: "1"}))
	return f
}
