package action

import (
	"context"

	"github.com/actionkit/actionkit/errorcodes"
)

// Action is an API operation with arguments I and result O. The framework
// decodes I from the request, validates it and calls Run only when the caller
// is allowed by Spec().Auth.
//
// I must be a struct whose fields carry `arg` tags (see the framework package
// for the tag vocabulary). O must be a struct encoded with encoding/json; its
// fields become the keys of the flat success body beside "status" and
// "success", which O may not declare itself.
type Action[I, O any] interface {
	Spec() Spec
	Run(ctx context.Context, req *Request, in *I) (*O, error)
}

// Spec declares an action's identity and access rules.
type Spec struct {
	// Name is the wire name with its version prefix, such as "V1Login".
	Name string
	// Path is the route, version segment first and lowercase, such as
	// "/v1/users/login".
	Path string
	// Summary is a one-line description used in the generated API document.
	Summary string
	// Auth says who may call the action.
	Auth Auth
	// Clients limits the client types (token audiences) accepted from an
	// authenticated caller. Empty means every client type.
	Clients []Client
	// Status is the HTTP status of a success; 0 means 200. A result may
	// override it per request by implementing StatusCoder. A redirect
	// status (301, 302, 303, 307, 308) requires a result implementing
	// Redirect, and only such a result may have one.
	Status int
	// Errors lists the codes the action itself may return, for the generated
	// API document. The framework adds the codes it produces on its own.
	Errors []errorcodes.Code
	// RateClass is the credential class whose per-client budget each call
	// spends, shared by every action of the class (V1Login and V2Login
	// both spend RatePassword). Empty means only the global limit applies.
	RateClass RateClass
	// SameSite makes the framework refuse a cross-site request with
	// 403 FORBIDDEN before the action runs (login CSRF): set it on every
	// action that sets or reads a credential cookie. A request is
	// cross-site when its Sec-Fetch-Site is "cross-site", or when it
	// carries an Origin that is neither its own nor an allowed one. A GET
	// or HEAD (what a top-level navigation sends, without Origin) is
	// refused as well unless its Sec-Fetch-Site is absent, "same-origin"
	// or "none": from a sibling subdomain ("same-site") it is refused too.
	SameSite bool
	// Reauth is what an Owner action requires of how the caller's session
	// was authenticated, checked by the framework before the action runs
	// from the caller's Assurance; the zero value requires nothing more
	// than a valid token.
	Reauth Reauth
	// Scopes make the action accept, besides its Auth's own credentials,
	// an OAuth access token ("Authorization: Bearer <token>") of the
	// framework's configured authorization server whose scope holds every
	// one of them and whose aud is this service's resource (CONTRACT §20).
	// Only an Owner action may declare scopes, never a sensitive one
	// (Reauth ReauthRecent or stronger) nor one under /v1/users/oauth/.
	Scopes []string
	// Tool, when set, also serves the action as a Model Context Protocol
	// tool at the framework's MCP path: same arguments (its inputSchema is
	// the action's argument schema), same pipeline, same answers.
	Tool *Tool
}

// Tool declares an action as an MCP tool.
type Tool struct {
	// Name is the tool's name: 1 to 64 of a-z, 0-9 and _, unique among
	// the framework's tools.
	Name string
	// Description tells an agent what the tool does and when to use it.
	Description string
}

// Reauth is an action's requirement on how the caller's session was
// authenticated.
type Reauth uint8

// The requirements, weakest first.
const (
	// ReauthNone requires nothing beyond the action's Auth.
	ReauthNone Reauth = iota
	// ReauthLevel requires level 2 of a caller whose owner has a second
	// factor: the session must have used it (password change).
	ReauthLevel
	// ReauthRecent is ReauthLevel plus a recent authentication: the
	// session's last interactive authentication is at most the
	// framework's configured age (sensitive actions such as turning the
	// second factor off).
	ReauthRecent
	// ReauthFactor is ReauthRecent plus, for a caller whose owner has a
	// second factor, a recent use of it: the session's last
	// authentication with a second factor (Assurance.FactorAt) is at most
	// the same age. A password re-authentication alone does not satisfy
	// it (changes to the second factor itself, so that a stolen session
	// and a password cannot replace the factors).
	ReauthFactor
)

// RateClass names a budget of credential-taking actions.
type RateClass string

// The credential classes: each is one budget per client, shared by every
// action that declares it (docs/security.md, Limits and abuse protection).
const (
	RatePassword RateClass = "password" // every login of every version, password changes
	RateRefresh  RateClass = "refresh"  // refresh-token rotation
	RateRegister RateClass = "register" // self-registration
	RateMail     RateClass = "mail"     // actions that send mail
	RateToken    RateClass = "token"    // actions that redeem a one-time token
	RateMFA      RateClass = "mfa"      // second factors and re-authentication
	RateOIDC     RateClass = "oidc"     // sign-in through identity providers
	RatePasskey  RateClass = "passkey"  // passwordless logins with a passkey
	// RateOAuth counts, per client address, the OAuth provider's failed
	// client authentications and grants, dynamic registrations and client
	// metadata document fetches (CONTRACT §19).
	RateOAuth RateClass = "oauth"
)

// StatusCoder is implemented by results whose success status depends on the
// request, such as a publish that answers 202 when it hands work to a job.
type StatusCoder interface {
	StatusCode() int
}

// JSONAppender is implemented by results that write their own JSON object,
// which spares a hot answer encoding/json's reflection. AppendJSON appends
// to b exactly the object encoding/json would write for the result (HTML
// characters escaped, as the framework's encoder does). A result type that
// embeds another would inherit its AppendJSON, which knows nothing of the
// embedding type's own fields: the framework calls AppendJSON only for a
// result type that embeds no JSONAppender, and encodes any other with
// encoding/json.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// Redirect is implemented by the results of an action whose success is a
// redirect (Spec.Status 302, for instance): the framework answers with
// the Location and no body instead of the JSON body. Errors are answered
// as JSON as usual.
type Redirect interface {
	Location() string
}

// Client is the client type a caller declares with the X-Client header and
// that an access token is bound to through its audience.
type Client string

// The client types.
const (
	Web Client = "web"
	App Client = "app"
)

// Allows reports whether the spec accepts an authenticated caller of client c.
func (s Spec) Allows(c Client) bool {
	if len(s.Clients) == 0 {
		return true
	}
	for _, allowed := range s.Clients {
		if allowed == c {
			return true
		}
	}
	return false
}
