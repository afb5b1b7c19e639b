package oauthserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/models"
)

// challengePattern is an S256 code challenge: the base64url (no padding)
// SHA-256 of the verifier, 43 characters.
var challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// The bounds of the free-text parameters of a request.
const (
	maxStateBytes = 1024
	maxNonceBytes = 512
)

// promptValues are the values of prompt the provider knows.
var promptValues = []string{"none", "login", "consent", "select_account"}

// authorize is GET|POST /oauth2/authorize (CONTRACT §19, steps 1 to 3).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, badRequest("invalid_request", "the request could not be read"))
		return
	}
	q := r.Form
	// Step 1: the client and its redirect URI, or an error page.
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	if clientID == "" || len(q["client_id"]) > 1 {
		s.errorPage(w, r, badRequest("invalid_request", "client_id is required, once"))
		return
	}
	client, limited, err := s.requestClient(r, clientID)
	if limited != nil {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((limited.retry+time.Second-1)/time.Second))))
		s.errorPage(w, r, limited)
		return
	}
	if notFound(err) {
		s.errorPage(w, r, badRequest("invalid_client", "unknown client"))
		return
	}
	if err != nil {
		s.log().Error("authorize: the client could not be read", "clientId", clientID, "error", err.Error())
		s.errorPage(w, r, perr(http.StatusInternalServerError, "server_error", "the client could not be read; retry later"))
		return
	}
	if redirectURI == "" || len(q["redirect_uri"]) > 1 || !RedirectMatches(client.RedirectURIs, redirectURI) {
		s.errorPage(w, r, badRequest("invalid_request", "redirect_uri is missing or not registered for this client"))
		return
	}
	// Step 2: every other error, redirected for verified clients only.
	req, perr := s.parseAuthorization(client, q)
	if perr != nil {
		if client.Verified() {
			http.Redirect(w, r, s.errorRedirect(redirectURI, perr, q.Get("state")), http.StatusFound)
			return
		}
		s.errorPage(w, r, perr)
		return
	}
	// Step 3: store the request, set the cookie and go to the page.
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		s.errorPage(w, r, perr500())
		return
	}
	requestID := hex.EncodeToString(raw)
	// The browser's secret binds the request to this browser: only the
	// cookie carries it, never the interaction URL.
	secret, err := randomToken()
	if err != nil {
		s.errorPage(w, r, perr500())
		return
	}
	browserHash := hashID(secret)
	now := s.now()
	id, err := uuid.NewV7()
	if err != nil {
		s.errorPage(w, r, perr500())
		return
	}
	req.ID, req.RequestHash, req.RedirectURI = id, hashID(requestID), redirectURI
	req.CreatedAt, req.ExpiresAt, req.BrowserHash = now, now.Add(RequestTTL), &browserHash
	if err := s.Store.InsertRequest(r.Context(), s.DB, req); err != nil {
		s.log().Error("authorize: the request could not be stored", "error", err.Error())
		s.errorPage(w, r, perr500())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: RequestCookie, Value: requestID + "." + secret, Path: RequestCookiePath,
		MaxAge: int(RequestTTL.Seconds()), HttpOnly: true, Secure: s.SecureCookies, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, withQuery(s.InteractionURL, url.Values{"oauth_request": {requestID}}), http.StatusFound)
}

func perr500() *protocolError {
	return perr(http.StatusInternalServerError, "server_error", "the request could not be completed; retry later")
}

// parseAuthorization checks the parameters of step 2 and returns the
// request to store (without its id, hash and times).
func (s *Server) parseAuthorization(client *models.OAuthClient, q url.Values) (*models.OAuthRequest, *protocolError) {
	for name, vs := range q {
		if len(vs) > 1 && name != "resource" {
			return nil, badRequest("invalid_request", "a parameter is given more than once")
		}
	}
	switch rt := q.Get("response_type"); {
	case rt == "":
		return nil, badRequest("invalid_request", "response_type is required")
	case rt != "code":
		return nil, badRequest("unsupported_response_type", "only response_type code is supported")
	}
	if !slices.Contains(client.GrantTypes, "authorization_code") {
		return nil, badRequest("unauthorized_client", "the client may not use the authorization code flow")
	}
	if rm := q.Get("response_mode"); rm != "" && rm != "query" {
		return nil, badRequest("invalid_request", "only response_mode query is supported")
	}
	if q.Has("request") || q.Has("request_uri") {
		return nil, badRequest("invalid_request", "request objects are not supported")
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	if challenge == "" || method != "S256" {
		return nil, badRequest("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
	}
	if !challengePattern.MatchString(challenge) {
		return nil, badRequest("invalid_request", "code_challenge is not an S256 challenge")
	}
	scopes, perr := s.requestedScopes(client, q.Get("scope"), q.Has("scope"))
	if perr != nil {
		return nil, perr
	}
	resources, perr := s.requestedResources(q["resource"])
	if perr != nil {
		return nil, perr
	}
	prompt := strings.Fields(q.Get("prompt"))
	for _, p := range prompt {
		if !slices.Contains(promptValues, p) {
			return nil, badRequest("invalid_request", "a prompt value is unknown")
		}
	}
	if slices.Contains(prompt, "none") && len(prompt) > 1 {
		return nil, badRequest("invalid_request", "prompt=none cannot be combined with other values")
	}
	req := &models.OAuthRequest{ClientID: client.ClientID, Scopes: scopes, Resources: resources,
		CodeChallenge: challenge, Prompt: dedupe(prompt)}
	if v := q.Get("max_age"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return nil, badRequest("invalid_request", "max_age is not a non-negative integer")
		}
		age := int32(n)
		req.MaxAge = &age
	}
	if v := q.Get("state"); v != "" {
		if !freeText(v, maxStateBytes) {
			return nil, badRequest("invalid_request", "state is too long or not UTF-8 text")
		}
		req.State = &v
	}
	if v := q.Get("nonce"); v != "" {
		if !freeText(v, maxNonceBytes) {
			return nil, badRequest("invalid_request", "nonce is too long or not UTF-8 text")
		}
		req.Nonce = &v
	}
	return req, nil
}

// freeText reports whether v can be stored as a free-text parameter: at
// most limit bytes of valid UTF-8 without NUL (PostgreSQL text holds
// neither invalid UTF-8 nor NUL).
func freeText(v string, limit int) bool {
	return len(v) <= limit && utf8.ValidString(v) && !strings.ContainsRune(v, 0)
}

// allowedScopes returns the scopes client may ask for: its registered
// scope, or every supported scope for a client without one.
func (s *Server) allowedScopes(client *models.OAuthClient) []string {
	if client.Scope == nil {
		return s.scopes()
	}
	var out []string
	for _, sc := range strings.Fields(*client.Scope) {
		if slices.Contains(s.scopes(), sc) {
			out = append(out, sc)
		}
	}
	return out
}

// requestedScopes checks the scope parameter: each value supported and
// allowed to the client. Without one, the client's allowed scopes.
func (s *Server) requestedScopes(client *models.OAuthClient, scope string, given bool) ([]string, *protocolError) {
	allowed := s.allowedScopes(client)
	if !given {
		return allowed, nil
	}
	asked := dedupe(strings.Fields(scope))
	if len(asked) == 0 {
		return nil, badRequest("invalid_scope", "scope is empty")
	}
	for _, sc := range asked {
		if !slices.Contains(allowed, sc) {
			return nil, badRequest("invalid_scope", "a requested scope is unknown or not allowed to this client")
		}
	}
	return asked, nil
}

// requestedResources checks the resource parameters (RFC 8707): each one
// of the configured resources, compared after serialization.
func (s *Server) requestedResources(raw []string) ([]string, *protocolError) {
	var out []string
	for _, r := range raw {
		norm, ok := ResourceURI(r)
		if !ok || !slices.Contains(s.Resources, norm) {
			return nil, badRequest("invalid_target", "a requested resource is not served by this authorization server")
		}
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out, nil
}

// RedirectMatches reports whether the redirect URI given at authorize is
// one of registered: equal to one as a string, or, for a registered http
// URI on a loopback host, equal to it but for the port (RFC 8252 §7.3).
// Nothing is normalised: a different case, a dot segment, userinfo or a
// longer path is another URI.
func RedirectMatches(registered []string, given string) bool {
	if slices.Contains(registered, given) {
		return true
	}
	g, err := url.Parse(given)
	if err != nil || g.Scheme != "http" || g.User != nil || g.Opaque != "" || g.Fragment != "" ||
		strings.Contains(given, "#") || !loopbackHost(g.Hostname()) {
		return false
	}
	for _, reg := range registered {
		u, err := url.Parse(reg)
		if err != nil || u.Scheme != "http" || u.User != nil || !loopbackHost(u.Hostname()) {
			continue
		}
		if u.Hostname() == g.Hostname() && u.EscapedPath() == g.EscapedPath() && u.RawQuery == g.RawQuery &&
			u.ForceQuery == g.ForceQuery && validPort(g.Port()) {
			return true
		}
	}
	return false
}

// loopbackHost reports whether host is a loopback host of RFC 8252.
func loopbackHost(host string) bool {
	return host == "127.0.0.1" || host == "::1" || host == "localhost"
}

// validPort reports whether p is empty or a port number.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536 && strconv.Itoa(n) == p
}

// LoopbackOrPrivateUse reports whether a redirect URI is one any local
// program can claim (RFC 8252 §8.6): http on a loopback host, or a
// private-use scheme.
func LoopbackOrPrivateUse(uri string) bool {
	u, err := url.Parse(uri)
	return err != nil || u.Scheme != "https"
}

// errorRedirect is the redirect of an error to a validated redirect URI,
// with state (when sent) and iss.
func (s *Server) errorRedirect(redirectURI string, e *protocolError, state string) string {
	v := url.Values{"error": {e.code}, "error_description": {e.description}, "iss": {s.Issuer}}
	if state != "" {
		v.Set("state", state)
	}
	return withQuery(redirectURI, v)
}

// withQuery adds v to the query of base.
func withQuery(base string, v url.Values) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// errorPage answers an error that must not be redirected: JSON when the
// request accepts JSON, else a small HTML page.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, e *protocolError) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	if acceptsJSON(r) {
		writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.description})
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(e.status)
	fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign-in error</title></head>"+
		"<body><h1>This sign-in request cannot be completed</h1><p><code>%s</code>: %s</p></body></html>\n",
		html.EscapeString(e.code), html.EscapeString(e.description))
}

// acceptsJSON reports whether the request asks for JSON.
func acceptsJSON(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/html")
}

// dedupe returns vs without repeated values, in order.
func dedupe(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
