// Package oauthserver is actionkit as an OAuth 2.1 authorization server
// and OpenID provider (CONTRACT §19): the discovery documents, the
// authorization endpoint, the interaction actions the consent page calls,
// the token endpoint and userinfo.
//
// It owns no session or key machinery of its own. An OAuth sign-in is a
// session of the user (a user_sessions chain with client 'oauth', opened
// and rotated by package accounts), its tokens are signed with the
// access-token signing keys (package signingkeys), and what it was granted
// is a row of oauth_grants keyed by its session id, so that every way a
// user's sessions end ends it too.
package oauthserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver/clients"
)

// The endpoints of the provider.
const (
	AuthorizePath     = "/oauth2/authorize"
	TokenPath         = "/oauth2/token"
	UserinfoPath      = "/oauth2/userinfo"
	RevokePath        = "/oauth2/revoke"
	IntrospectPath    = "/oauth2/introspect"
	LogoutPath        = "/oauth2/logout"
	RegisterPath      = "/oauth2/register"
	JWKSPath          = "/.well-known/jwks.json"
	OpenIDConfigPath  = "/.well-known/openid-configuration"
	ASMetadataPath    = "/.well-known/oauth-authorization-server"
	RequestCookie     = "oauth-request"
	RequestCookiePath = "/v1/users/oauth/"
)

// RS256 is the default signing algorithm of ID tokens.
const RS256 = "RS256"

// The lifetimes of the provider's one-time values.
const (
	RequestTTL = 10 * time.Minute
	CodeTTL    = 60 * time.Second
)

// The scopes of OpenID Connect the provider always supports.
const (
	ScopeOpenID        = "openid"
	ScopeProfile       = "profile"
	ScopeEmail         = "email"
	ScopeOfflineAccess = "offline_access"
)

// DefaultScopes are the scopes supported before any action declares its
// own.
func DefaultScopes() []string {
	return []string{ScopeOpenID, ScopeProfile, ScopeEmail, ScopeOfflineAccess}
}

// Clients looks clients up (CONTRACT §19; the interface is shared with
// package oauthserver/clients, whose Registry also resolves client ID
// metadata documents).
type Clients interface {
	// Client returns the enabled client named clientID, resolving a client ID metadata
	// document URL when those are on. An unknown or disabled client, or a document that
	// cannot be fetched or validated, is an error wrapping models.ErrNotFound; any other
	// error is an infrastructure failure.
	Client(ctx context.Context, clientID string) (*models.OAuthClient, error)
}

// IDTokenKeys gives the RS256 key of ID tokens (signingkeys.Ring).
type IDTokenKeys interface {
	IDTokenKey() (*auth.Key, error)
}

// SigningKeys are the access-token signing keys (signingkeys.Ring): the
// active key signs access tokens (and the ID tokens of clients whose
// id_token_alg is ACCESS_TOKEN_ALG), every published key verifies.
type SigningKeys interface {
	SigningKey() (*auth.Key, error)
	VerifyKey(ctx context.Context, kid string) (*auth.Key, error)
}

// Limits are the budgets of the rate class oauth (CONTRACT §19, §22), per
// client address, as the password class does it: Attempt admits one
// request while the address's failures are within AUTH_RATE_LIMIT_MAX and
// spends one of its attempts (bounded at 10 × AUTH_RATE_LIMIT_MAX), and
// Failure counts a failed client authentication or grant once the answer
// is known. A refusal returns how long to wait.
type Limits interface {
	Attempt(r *http.Request) (retry time.Duration, ok bool)
	Failure(r *http.Request)
}

// DBClients is the plain implementation of Clients over oauth_clients:
// admin and dynamic clients only, no metadata documents.
type DBClients struct {
	DB    *sqlx.DB
	Store models.OAuthClientStore
}

// Client implements Clients.
func (c DBClients) Client(ctx context.Context, clientID string) (*models.OAuthClient, error) {
	cl, err := c.Store.ByClientID(ctx, c.DB, clientID)
	if err != nil {
		return nil, err
	}
	if cl.DisabledAt != nil {
		return nil, models.ErrNotFound
	}
	return cl, nil
}

// lookupClient returns the enabled client named id, as Clients does; an
// id no client can have (empty, over 2048 bytes, not UTF-8 or with a NUL)
// is models.ErrNotFound without a lookup.
func (s *Server) lookupClient(ctx context.Context, id string) (*models.OAuthClient, error) {
	if id == "" || len(id) > 2048 || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return nil, models.ErrNotFound
	}
	return s.Clients.Client(ctx, id)
}

// requestClient looks up the client named id for the request r: the
// lookup carries r's client address, so that a client metadata document
// it fetches spends that address's oauth budget. A fetch the budget
// refuses is a 429 protocol error with its Retry-After.
func (s *Server) requestClient(r *http.Request, id string) (*models.OAuthClient, *protocolError, error) {
	ctx := r.Context()
	if s.ClientIP != nil {
		ctx = clients.WithClientIP(ctx, s.ClientIP(r))
	}
	client, err := s.lookupClient(ctx, id)
	if limited, ok := errors.AsType[*clients.RateLimitedError](err); ok {
		e := perr(http.StatusTooManyRequests, "temporarily_unavailable", "too many requests; retry later")
		e.retry = limited.RetryAfter
		return nil, e, nil
	}
	return client, nil, err
}

// Config is the provider's configuration (server/config_oauth.go).
type Config struct {
	// Issuer is PUBLIC_URL exactly.
	Issuer string
	// InteractionURL is the sign-in and consent page.
	InteractionURL string
	// Resources are the resources tokens may be issued for, each in its
	// WHATWG serialization (ResourceURI).
	Resources []string
	// AccessTokenTTL is the lifetime of access and ID tokens.
	AccessTokenTTL time.Duration
	// AccessTokenAlg is ACCESS_TOKEN_ALG (EdDSA or ES256).
	AccessTokenAlg string
	// DynamicRegistration publishes the registration endpoint.
	DynamicRegistration bool
	// MetadataDocuments is client_id_metadata_document_supported.
	MetadataDocuments bool
	// Scopes are the supported scopes; nil is DefaultScopes.
	Scopes []string
	// SecureCookies marks the oauth-request cookie Secure (production).
	SecureCookies bool
}

// Server is the provider. Fields are dependencies, set once before use.
type Server struct {
	Config
	DB *sqlx.DB
	// Users is the users' account engine: the provider reads the users
	// and checks their sessions through it.
	Users *accounts.Service
	// OAuthSessions opens, rotates and ends the OAuth sessions on Users,
	// and records the provider's security events.
	OAuthSessions *accounts.OAuthSessions
	Clients       Clients
	// ClientIP, when set, gives the client address of a request (for the
	// oauth budget of the metadata documents a lookup fetches).
	ClientIP func(*http.Request) string
	// ClientStore touches the clients' last use.
	ClientStore models.OAuthClientStore
	Store       models.OAuthFlowStore
	Keys        SigningKeys
	// IDKeys signs the RS256 ID tokens; nil refuses clients that want
	// them (server_error).
	IDKeys IDTokenKeys
	// Limits, when set, bounds the token endpoint (rate class oauth).
	Limits Limits
	// Notices sends the mail of a first connection; nil sends none.
	Notices *mail.Mailer
	// ReauthDetails, when set, gives the members of a
	// USER_FORBIDDEN_REAUTHENTICATION_REQUIRED answer (§12).
	ReauthDetails func(ctx context.Context, user uuid.UUID, factor bool) (any, error)
	// Now returns the current time in UTC.
	Now func() time.Time
	Log *slog.Logger
}

// scopes returns the supported scopes.
func (s *Server) scopes() []string {
	if s.Scopes == nil {
		return DefaultScopes()
	}
	return s.Scopes
}

// Mount registers the provider's endpoints with handle (the framework's
// Handle).
func (s *Server) Mount(handle func(method, path string, h http.Handler)) {
	disc := cors(http.HandlerFunc(s.discovery))
	for _, p := range []string{OpenIDConfigPath, ASMetadataPath} {
		handle(http.MethodGet, p, disc)
		handle(http.MethodHead, p, disc)
	}
	handle(http.MethodGet, AuthorizePath, http.HandlerFunc(s.authorize))
	handle(http.MethodPost, AuthorizePath, http.HandlerFunc(s.authorize))
	handle(http.MethodPost, TokenPath, cors(tokenEndpoint{s}))
	handle(http.MethodPost, RevokePath, cors(http.HandlerFunc(s.revoke)))
	handle(http.MethodPost, IntrospectPath, http.HandlerFunc(s.introspect))
	handle(http.MethodGet, LogoutPath, http.HandlerFunc(s.logout))
	ui := cors(http.HandlerFunc(s.userinfo))
	handle(http.MethodGet, UserinfoPath, ui)
	handle(http.MethodPost, UserinfoPath, ui)
}

// publicPaths are the endpoints that answer CORS requests from any origin.
var publicPaths = []string{OpenIDConfigPath, ASMetadataPath, JWKSPath, TokenPath, UserinfoPath, RevokePath, RegisterPath}

// CORS wraps the server's handler: a preflight of an endpoint that answers
// any origin is answered here, without credentials, before the
// framework's own CORS (which knows the first-party origins only).
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" &&
			slices.Contains(publicPaths, r.URL.Path) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, DPoP")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cors marks an answer readable by any origin, never with credentials.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Del("Access-Control-Allow-Credentials")
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After")
		next.ServeHTTP(w, r)
	})
}

// ClaimsSupported are the claims of ID tokens and userinfo.
var ClaimsSupported = []string{"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "sid", "at_hash",
	"email", "email_verified", "name", "given_name", "family_name", "locale", "zoneinfo", "updated_at"}

// Metadata returns the discovery document (OpenID Connect Discovery and
// RFC 8414 alike).
func (s *Server) Metadata() map[string]any {
	m := map[string]any{
		"issuer":                                         s.Issuer,
		"authorization_endpoint":                         s.Issuer + AuthorizePath,
		"token_endpoint":                                 s.Issuer + TokenPath,
		"userinfo_endpoint":                              s.Issuer + UserinfoPath,
		"jwks_uri":                                       s.Issuer + JWKSPath,
		"revocation_endpoint":                            s.Issuer + RevokePath,
		"introspection_endpoint":                         s.Issuer + IntrospectPath,
		"end_session_endpoint":                           s.Issuer + LogoutPath,
		"scopes_supported":                               s.scopes(),
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{RS256, s.AccessTokenAlg},
		"claims_supported":                               ClaimsSupported,
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          s.MetadataDocuments,
	}
	if s.DynamicRegistration {
		m["registration_endpoint"] = s.Issuer + RegisterPath
	}
	return m
}

func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	if r.Method == http.MethodHead {
		return
	}
	_ = json.NewEncoder(w).Encode(s.Metadata())
}

// writeJSON answers v with status, never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protocolError is an error of the protocol's own format (RFC 6749 §5.2).
type protocolError struct {
	status      int
	code        string
	description string
	// retry is the Retry-After of a 429.
	retry time.Duration
}

func (e *protocolError) Error() string { return e.code + ": " + e.description }

func perr(status int, code, description string) *protocolError {
	return &protocolError{status: status, code: code, description: describable(description)}
}

// describable returns d with every byte that error_description may not
// hold (RFC 6749 §4.1.2.1, §5.2: only %x20-21 / %x23-5B / %x5D-7E) made a
// question mark. Descriptions never quote request values; this keeps a
// mistake from reaching a client.
func describable(d string) string {
	b := []byte(d)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = '?'
		}
	}
	return string(b)
}

func badRequest(code, description string) *protocolError {
	return perr(http.StatusBadRequest, code, description)
}

// notFound reports whether err says a client or row does not exist.
func notFound(err error) bool { return errors.Is(err, models.ErrNotFound) }

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

func (s *Server) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}
