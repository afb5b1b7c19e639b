package framework

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/accesstoken"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/errorcodes"
)

// ProtectedResourcePath is where the framework serves the metadata of its
// resource (RFC 9728); the MCP resource's is this path followed by the
// MCP path.
const ProtectedResourcePath = "/.well-known/oauth-protected-resource"

// OAuth makes the framework an OAuth protected resource (CONTRACT §20): its
// actions that declare Spec.Scopes accept access tokens of one
// authorization server, and its actions that declare Spec.Tool are served
// over MCP.
type OAuth struct {
	// Issuer is the authorization server's issuer: the iss of its tokens,
	// listed in the metadata's authorization_servers. Required.
	Issuer string
	// Keys verify the authorization server's tokens: a jwks.Keys over its
	// key set (jwks.NewKeys, with the jwks_uri of its metadata), or the
	// server's own key source when it is this very process. Required.
	Keys auth.KeySource
	// Algorithms are the accepted signing algorithms, from auth.EdDSA and
	// auth.ES256; default both.
	Algorithms []string
	// Resource is this service's resource URI, the aud its HTTP actions
	// accept, such as https://notes.example.com. Required.
	Resource string
	// ResourceName is the metadata's resource_name, a human-readable
	// name of the service; empty leaves it out.
	ResourceName string
	// AuthorizationEndpoint and TokenEndpoint are the authorization
	// server's, for the OpenAPI oauth2 security scheme; empty means
	// actionkit's own, <Issuer>/oauth2/authorize and <Issuer>/oauth2/token.
	AuthorizationEndpoint, TokenEndpoint string
	// MCPPath is where the MCP endpoint is served, such as /mcp: its
	// resource is Resource followed by MCPPath, and only tokens for that
	// resource are accepted there. Empty serves no MCP endpoint.
	MCPPath string
	// MCPName and MCPVersion describe the MCP server to its clients;
	// default ResourceName (or "actionkit") and "1".
	MCPName, MCPVersion string
	// Owner is the owner type of the tokens' subjects, asked of Sessions
	// for an MCP request; default "user".
	Owner action.OwnerType
	// Rules document the named validation rules in the tools' input
	// schemas, as OpenAPIInfo.Rules does in the OpenAPI document.
	Rules map[string]Schema
	// Sessions, when set, is asked whether the session of every accepted
	// token is still live, and resolves its caller.
	Sessions OAuthSessions
}

// OAuthSessions resolves the caller of an OAuth access token from its
// session, so that an ended session (a logout, a revoked app) is refused at
// once rather than when the token expires.
type OAuthSessions interface {
	// OAuthCaller returns the caller of owner type owner that token
	// names (its Subject and SessionID), or (nil, nil) when its session
	// is not live or the owner cannot call (then 401). needs says what
	// the action needs read of the caller (its Assurance for a
	// Spec.Reauth). An error is a failure to find out, answered like an
	// action's. The framework sets the caller's ClientID and Scopes.
	OAuthCaller(ctx context.Context, owner action.OwnerType, token *accesstoken.Token, needs action.Needs) (*action.Caller, error)
}

// resourceServer is the framework's part of OAuth: the verifier and the
// configuration in canonical form.
type resourceServer struct {
	cfg         OAuth
	verifier    *accesstoken.Verifier
	resource    string // cfg.Resource without a trailing slash, as configured
	mcpResource string // resource + MCPPath, or ""
	metadataURL string
	mcpMetaURL  string
}

var mcpPathRe = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)

// newResourceServer validates cfg; it panics on a configuration error, a
// programming error of the embedding service.
func newResourceServer(cfg OAuth) *resourceServer {
	if u, ok := accesstoken.ResourceURI(cfg.Resource); !ok || strings.Count(u, "/") != 3 || strings.ContainsAny(u, "?") {
		panic(fmt.Sprintf("framework: OAuth.Resource %q is not the origin of an http(s) URI, such as https://notes.example.com", cfg.Resource))
	}
	if cfg.MCPPath != "" && !mcpPathRe.MatchString(cfg.MCPPath) {
		panic(fmt.Sprintf("framework: OAuth.MCPPath %q is not an absolute path such as /mcp", cfg.MCPPath))
	}
	v, err := accesstoken.New(accesstoken.Config{Issuer: cfg.Issuer, Keys: cfg.Keys, Algorithms: cfg.Algorithms})
	if err != nil {
		panic("framework: OAuth: " + err.Error())
	}
	if cfg.AuthorizationEndpoint == "" {
		cfg.AuthorizationEndpoint = strings.TrimSuffix(cfg.Issuer, "/") + "/oauth2/authorize"
	}
	if cfg.TokenEndpoint == "" {
		cfg.TokenEndpoint = strings.TrimSuffix(cfg.Issuer, "/") + "/oauth2/token"
	}
	if cfg.MCPName == "" {
		cfg.MCPName = orDefault(cfg.ResourceName, "actionkit")
	}
	if cfg.Owner == "" {
		cfg.Owner = "user"
	}
	if cfg.MCPVersion == "" {
		cfg.MCPVersion = "1"
	}
	rs := &resourceServer{cfg: cfg, verifier: v, resource: strings.TrimSuffix(cfg.Resource, "/")}
	rs.metadataURL = rs.resource + ProtectedResourcePath
	if cfg.MCPPath != "" {
		rs.mcpResource = rs.resource + cfg.MCPPath
		rs.mcpMetaURL = rs.resource + ProtectedResourcePath + cfg.MCPPath
	}
	return rs
}

// publicCORS reports the paths open to every origin: the metadata
// documents and the MCP endpoint.
func (rs *resourceServer) publicCORS(path string) bool {
	return path == ProtectedResourcePath ||
		rs.mcpResource != "" && (path == rs.cfg.MCPPath || path == ProtectedResourcePath+rs.cfg.MCPPath)
}

// mcpCallKey marks the context of a request the MCP endpoint runs in
// process for a tool call: its tokens must name the MCP resource.
type mcpCallKey struct{}

// expectedResource is the aud a scoped action accepts on r: the MCP
// resource for a tool call, the service's resource otherwise.
func (rs *resourceServer) expectedResource(r *http.Request) (resource, metadata string) {
	if r.Context().Value(mcpCallKey{}) != nil {
		return rs.mcpResource, rs.mcpMetaURL
	}
	return rs.resource, rs.metadataURL
}

// challengeError is a refusal answered with a WWW-Authenticate header.
type challengeError struct {
	err       *errorcodes.Error
	challenge string
}

func (c *challengeError) Error() string { return c.err.Error() }
func (c *challengeError) Unwrap() error { return c.err }

// unauthorizedChallenge is 401 UNAUTHORIZED with the challenge that names
// the resource's metadata.
func unauthorizedChallenge(metadata string) error {
	return &challengeError{err: errorcodes.Unauthorized.New(), challenge: fmt.Sprintf(`Bearer resource_metadata=%q`, metadata)}
}

// insufficientScope is 403 FORBIDDEN_INSUFFICIENT_SCOPE with the step-up
// challenge: the token's scopes and the action's.
func insufficientScope(have, need []string, metadata string) error {
	scopes := slices.Clone(have)
	for _, s := range need {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return &challengeError{
		err: errorcodes.ForbiddenInsufficientScope.New(),
		challenge: fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`,
			strings.Join(scopes, " "), metadata),
	}
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// looksLikeAccessToken reports whether token is a JWT whose header says it
// is an RFC 9068 access token (typ at+jwt); only a peek to route it to the
// OAuth verifier, which checks everything, rather than to the
// Authenticator of first-party tokens.
func looksLikeAccessToken(token string) bool {
	head, _, ok := strings.Cut(token, ".")
	if !ok || len(head) > 1024 {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var h struct {
		Typ string `json:"typ"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	return strings.EqualFold(h.Typ, accesstoken.TypeAccessToken) || strings.EqualFold(h.Typ, accesstoken.TypeAccessTokenMIME)
}

// verify checks an access token for resource and resolves its caller for
// an action of owner type owner. A refusal is (nil, nil, nil).
func (rs *resourceServer) verify(ctx context.Context, token, resource string, owner action.OwnerType, needs action.Needs) (*accesstoken.Token, *action.Caller, error) {
	tok, err := rs.verifyToken(ctx, token, resource)
	if err != nil || tok == nil {
		return nil, nil, err
	}
	caller, err := rs.resolveCaller(ctx, tok, owner, needs)
	if err != nil || caller == nil {
		return nil, nil, err
	}
	return tok, caller, nil
}

// verifyToken checks an access token's signature and claims for resource.
// A refusal is (nil, nil).
func (rs *resourceServer) verifyToken(ctx context.Context, token, resource string) (*accesstoken.Token, error) {
	tok, err := rs.verifier.Verify(ctx, token, resource)
	if errors.Is(err, accesstoken.ErrInvalidToken) {
		return nil, nil
	}
	return tok, err
}

// resolveCaller asks OAuthSessions (one read of the session) for the
// caller of a verified token. A refusal is (nil, nil).
func (rs *resourceServer) resolveCaller(ctx context.Context, tok *accesstoken.Token, owner action.OwnerType, needs action.Needs) (*action.Caller, error) {
	var caller *action.Caller
	if rs.cfg.Sessions != nil {
		c, err := rs.cfg.Sessions.OAuthCaller(ctx, owner, tok, needs)
		if err != nil || c == nil {
			return nil, err
		}
		caller = c
	} else {
		// Without a session store the token is all there is: a token
		// (with a session) of UUIDs, whose subject is of OAuth.Owner, so
		// it never runs an action of another owner type.
		if owner != rs.cfg.Owner {
			return nil, nil
		}
		sub, err1 := uuid.Parse(tok.Subject)
		sid, err2 := uuid.Parse(tok.SessionID)
		if err1 != nil || err2 != nil {
			return nil, nil
		}
		caller = &action.Caller{Type: owner, ID: sub, SessionID: sid, SessionExpiresAt: tok.ExpiresAt}
	}
	caller.ClientID, caller.Scopes = tok.ClientID, slices.Clone(tok.Scopes)
	return caller, nil
}

// authorizeOAuth resolves the caller of a scoped action from an OAuth
// access token and checks its scopes.
func (f *Framework) authorizeOAuth(r *http.Request, spec action.Spec, req *action.Request, token string) error {
	rs := f.oauth
	resource, metadata := rs.expectedResource(r)
	needs := action.Needs{Assurance: spec.Reauth != action.ReauthNone}
	tok, caller, err := rs.verify(r.Context(), token, resource, spec.Auth.Owner, needs)
	if err != nil {
		return err
	}
	return rs.admit(spec, req, tok, caller, metadata)
}

// authorizeToolCall authorizes a tool call with the token and caller the
// MCP endpoint verified and resolved for this very request, rather than
// verifying the token and reading the session a second time; the action's
// own rules (owner type, clients, scopes; Reauth after) apply as over
// HTTP. ok is false when the endpoint resolved no caller fit for spec (of
// another owner type, or without the Assurance a Spec.Reauth reads), then
// the caller runs the full check.
func (rs *resourceServer) authorizeToolCall(call *mcpCall, spec action.Spec, req *action.Request) (ok bool, err error) {
	if call.tok == nil || call.caller == nil || spec.Auth.Owner != rs.cfg.Owner ||
		(spec.Reauth != action.ReauthNone && !call.needs.Assurance) {
		return false, nil
	}
	c := *call.caller
	c.Scopes = slices.Clone(c.Scopes)
	return true, rs.admit(spec, req, call.tok, &c, rs.mcpMetaURL)
}

// admit applies a scoped action's rules to a verified token and its
// caller (nil: refused): the owner type, the clients, the scopes.
func (rs *resourceServer) admit(spec action.Spec, req *action.Request, tok *accesstoken.Token, caller *action.Caller, metadata string) error {
	if caller == nil || caller.Type != spec.Auth.Owner {
		return unauthorizedChallenge(metadata)
	}
	if caller.Client == "" {
		caller.Client = req.Client
	}
	if !spec.Allows(caller.Client) {
		return unauthorizedChallenge(metadata)
	}
	if !tok.HasScopes(spec.Scopes) {
		return insufficientScope(tok.Scopes, spec.Scopes, metadata)
	}
	req.Caller = caller
	return nil
}

// resourceMetadata is the protected-resource metadata document (RFC 9728
// §2).
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// metadataHandler serves the protected-resource metadata of resource.
func (f *Framework) metadataHandler(resource string, mcp bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scopes := f.declaredScopes(mcp)
		doc := resourceMetadata{
			Resource:               resource,
			AuthorizationServers:   []string{f.oauth.cfg.Issuer},
			ScopesSupported:        scopes,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           f.oauth.cfg.ResourceName,
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			f.WriteError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodHead {
			_, _ = w.Write(raw)
		}
	})
}

// declaredScopes lists every scope an action declares (of the tools only,
// with tools), in order of first declaration.
func (f *Framework) declaredScopes(tools bool) []string {
	scopes := []string{}
	for _, d := range f.actions {
		if tools && d.Spec.Tool == nil {
			continue
		}
		for _, s := range d.Spec.Scopes {
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
	}
	return scopes
}

// DeclaredScopes lists every scope the registered actions declare, in
// order of first declaration: the scopes an authorization server issuing
// tokens for this service supports.
func (f *Framework) DeclaredScopes() []string { return f.declaredScopes(false) }

var (
	scopeRe    = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]+$`)
	toolNameRe = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
)

// checkOAuthSpec refuses, at registration, scopes or a tool the framework
// could not honour or must not: on a sensitive action, on the OAuth
// interaction's own actions, a malformed scope or tool name, a tool name
// taken, scopes on an action that is not for an owner, a tool on an owner
// action without scopes (no token could ever call it) or on a redirect.
func (f *Framework) checkOAuthSpec(s action.Spec) {
	if len(s.Scopes) == 0 && s.Tool == nil {
		return
	}
	switch {
	case s.Reauth >= action.ReauthRecent:
		panic(fmt.Sprintf("framework: %s: a sensitive action (Reauth recent or stronger) cannot declare Scopes or Tool", s.Name))
	case strings.HasPrefix(s.Path+"/", "/v1/users/oauth/"):
		panic(fmt.Sprintf("framework: %s: the OAuth interaction (/v1/users/oauth/) cannot declare Scopes or Tool", s.Name))
	case len(s.Scopes) > 0 && s.Auth.Kind != action.KindOwner:
		panic(fmt.Sprintf("framework: %s: only an Owner action can declare Scopes", s.Name))
	case s.Tool != nil && s.Auth.Kind == action.KindOwner && len(s.Scopes) == 0:
		panic(fmt.Sprintf("framework: %s: a tool of an Owner action needs Scopes: an MCP caller holds an OAuth token", s.Name))
	case s.Tool != nil && redirectStatus(s.Status):
		panic(fmt.Sprintf("framework: %s: a redirect cannot be a tool", s.Name))
	}
	for i, sc := range s.Scopes {
		if !scopeRe.MatchString(sc) || slices.Contains(s.Scopes[:i], sc) {
			panic(fmt.Sprintf("framework: %s: scope %q is malformed (RFC 6749 §3.3) or given twice", s.Name, sc))
		}
	}
	if s.Tool == nil {
		return
	}
	if !toolNameRe.MatchString(s.Tool.Name) {
		panic(fmt.Sprintf("framework: %s: tool name %q must be 1 to 64 of a-z, 0-9 and _", s.Name, s.Tool.Name))
	}
	if strings.TrimSpace(s.Tool.Description) == "" {
		panic(fmt.Sprintf("framework: %s: tool %s needs a description", s.Name, s.Tool.Name))
	}
	for _, d := range f.actions {
		if d.Spec.Tool != nil && d.Spec.Tool.Name == s.Tool.Name {
			panic(fmt.Sprintf("framework: %s: tool name %s is taken by %s", s.Name, s.Tool.Name, d.Spec.Name))
		}
	}
}

// DiscoverOAuth reads the metadata of the authorization server issuer
// (RFC 8414) with client (nil: a default one) and returns the OAuth
// configuration that verifies its tokens with its key set (fetched and
// cached by jwks.Keys) and documents its endpoints. The caller sets
// Resource, and MCPPath, ResourceName or Sessions as it needs.
func DiscoverOAuth(ctx context.Context, client *http.Client, issuer string) (*OAuth, error) {
	meta, err := accesstoken.Discover(ctx, client, issuer)
	if err != nil {
		return nil, err
	}
	keys, err := jwks.NewKeys(jwks.Config{URL: meta.JWKSURI, HTTPClient: client})
	if err != nil {
		return nil, err
	}
	return &OAuth{Issuer: meta.Issuer, Keys: keys,
		AuthorizationEndpoint: meta.AuthorizationEndpoint, TokenEndpoint: meta.TokenEndpoint}, nil
}
