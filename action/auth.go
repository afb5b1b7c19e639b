package action

import (
	"time"

	"github.com/google/uuid"
)

// OwnerType names a kind of authenticated principal, such as "user" or
// "admin". It selects the Authorization scheme ("jwt-<type>"), the token
// audiences ("<type>-web", "<type>-app") and the refresh cookie
// ("jwt-<type>-refresh").
type OwnerType string

// Scheme is the Authorization header scheme of the owner type: "jwt-user".
func (t OwnerType) Scheme() string { return "jwt-" + string(t) }

// Audience is the token audience of the owner type for client c: "user-web".
func (t OwnerType) Audience(c Client) string { return string(t) + "-" + string(c) }

// RefreshCookie is the name of the owner type's refresh cookie:
// "jwt-user-refresh".
func (t OwnerType) RefreshCookie() string { return "jwt-" + string(t) + "-refresh" }

// AuthKind classifies an action's access rule.
type AuthKind uint8

// The access rules.
const (
	// KindPublic actions run for anyone; an Authorization header is ignored.
	KindPublic AuthKind = iota
	// KindLoggedOut actions refuse a caller holding a valid token of the
	// owner type (register and login: "must be logged out").
	KindLoggedOut
	// KindOwner actions require a caller of the owner type.
	KindOwner
	// KindOptional actions run for anyone, and know the caller when it
	// presents a valid token of the owner type (a token of another type
	// is ignored; an invalid one is refused as for KindOwner).
	KindOptional
)

// Auth is an action's access rule: one of Public, LoggedOut(t) or Owner(t).
type Auth struct {
	Kind  AuthKind
	Owner OwnerType
}

// Public lets anyone call the action.
var Public = Auth{Kind: KindPublic}

// LoggedOut admits anonymous callers and callers of other owner types, and
// refuses a caller authenticated as t with 401 UNAUTHORIZED.
func LoggedOut(t OwnerType) Auth { return Auth{Kind: KindLoggedOut, Owner: t} }

// Owner admits only callers authenticated as t; others get 401 UNAUTHORIZED.
func Owner(t OwnerType) Auth { return Auth{Kind: KindOwner, Owner: t} }

// Optional admits anyone, with Request.Caller set for a caller
// authenticated as t and nil otherwise.
func Optional(t OwnerType) Auth { return Auth{Kind: KindOptional, Owner: t} }

// Caller is an authenticated principal, resolved from a verified access
// token whose owner still exists and whose token version is current.
type Caller struct {
	// Type is the owner type the token was issued for.
	Type OwnerType
	// ID is the owner's id (the token's sub claim).
	ID uuid.UUID
	// Client is the client type the token is bound to by its audience.
	Client Client
	// TokenVersion is the owner's token version, equal to the token's claim.
	TokenVersion int64
	// SessionID is the id of the session (the login) the credential belongs
	// to; it was live when the request was authenticated.
	SessionID uuid.UUID
	// SessionExpiresAt is when that session expires unless it is refreshed.
	SessionExpiresAt time.Time
	// Assurance is how strongly and how recently that session was
	// authenticated, as the authenticator read it from the session. The
	// framework asks for it (Needs.Assurance) only for an action that
	// declares a Spec.Reauth, the one place that checks it; for other
	// actions an authenticator may leave it zero, which is no proof of a
	// second factor or of a recent authentication.
	Assurance Assurance
	// ClientID is the OAuth client the caller's access token was issued to,
	// when the caller presented an OAuth access token (Spec.Scopes); empty
	// for a first-party token.
	ClientID string
	// Scopes are the scopes of that OAuth access token; nil for a
	// first-party token.
	Scopes []string
	// Locale is the owner's preferred locale, used for messages.
	Locale string
	// Record is the owner record loaded by the owner type's loader, so that
	// an action needing it does not load it twice. Its dynamic type is the
	// loader's (for the bundled server, *models.Account).
	Record any
}

// Assurance is what an authenticator knows of how a caller's session was
// authenticated, from the session itself: the facts the framework checks
// an action's Spec.Reauth against.
type Assurance struct {
	// Methods are the authentication methods the session used (RFC 8176
	// values such as "pwd" and "otp").
	Methods []string
	// Level is the authenticator assurance level: 1, or 2 when a second
	// factor (or an equivalent) was used.
	Level int
	// AuthenticatedAt is the session's last interactive authentication
	// (login, second factor or re-authentication); zero when unknown.
	AuthenticatedAt time.Time
	// SecondFactor reports that the owner has a second factor, so that
	// Spec.Reauth requires Level 2 of its sessions.
	SecondFactor bool
	// FactorAt is the session's last authentication with a second factor
	// (or an equivalent); zero when it never used one.
	FactorAt time.Time
}

// Needs is what an action needs an authenticator to read of its caller
// beyond who it is; the framework passes it with every authentication.
type Needs struct {
	// Assurance asks for how the caller's session was authenticated
	// (Caller.Assurance): the framework asks for it for an action that
	// declares a Spec.Reauth. Reading it costs a session store more than
	// checking that the session is live, and most actions need only that.
	Assurance bool
}
