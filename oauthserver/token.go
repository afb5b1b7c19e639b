package oauthserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
)

// verifierPattern is a PKCE code verifier (RFC 7636 §4.1).
var verifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// codePattern is an authorization code: 32 random bytes as base64url.
var codePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// maxTokenBody bounds the body of a token request.
const maxTokenBody = 64 << 10

// tokenAnswer is a successful token response (RFC 6749 §5.1).
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	RefreshToken string `json:"refresh_token,omitempty"`
	IDToken      string `json:"id_token,omitempty"`
}

// tokenEndpoint is the handler of POST /oauth2/token. It authenticates
// the client and runs the grant asked for (authorization_code,
// refresh_token or client_credentials) over the provider's stores, keys
// and account engine; client authentication, which revocation and
// introspection share, stays on the Server.
type tokenEndpoint struct{ s *Server }

// ServeHTTP answers a token request. A request past the oauth rate class
// is refused before it is read; a failed client authentication or grant
// spends it.
func (t tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := t.s
	if s.Limits != nil {
		if retry, ok := s.Limits.Attempt(r); !ok {
			tooMany(w, retry)
			return
		}
	}
	ans, perr := t.request(w, r)
	if perr != nil {
		if s.Limits != nil && (perr.code == "invalid_client" || perr.code == "invalid_grant") {
			s.Limits.Failure(r)
		}
		if perr.code == "invalid_client" && strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+s.Issuer+`"`)
		}
		if perr.status == http.StatusTooManyRequests {
			tooMany(w, perr.retry)
			return
		}
		writeJSON(w, perr.status, map[string]string{"error": perr.code, "error_description": perr.description})
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

// tooMany answers a refusal of the oauth rate class.
func tooMany(w http.ResponseWriter, retry time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((retry+time.Second-1)/time.Second))))
	writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "temporarily_unavailable",
		"error_description": "too many requests; retry later"})
}

// request reads the token request's form, authenticates its client and
// runs its grant; a client that got its tokens has its last use recorded.
func (t tokenEndpoint) request(w http.ResponseWriter, r *http.Request) (*tokenAnswer, *protocolError) {
	s := t.s
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("invalid_request", "the body could not be read")
	}
	form := r.PostForm
	for name, vs := range form {
		if len(vs) > 1 && name != "resource" {
			return nil, badRequest("invalid_request", "a parameter is given more than once")
		}
	}
	client, perr := s.authenticateClient(r, form)
	if perr != nil {
		return nil, perr
	}
	grant := form.Get("grant_type")
	if grant == "" {
		return nil, badRequest("invalid_request", "grant_type is required")
	}
	if !slices.Contains([]string{"authorization_code", "refresh_token", "client_credentials"}, grant) {
		return nil, badRequest("unsupported_grant_type", "the grant_type is not supported")
	}
	if !slices.Contains(client.GrantTypes, grant) {
		return nil, badRequest("unauthorized_client", "the client may not use grant_type "+grant)
	}
	if len(form["resource"]) > 1 {
		return nil, badRequest("invalid_target", "name at most one resource")
	}
	var (
		ans *tokenAnswer
		err error
	)
	switch grant {
	case "authorization_code":
		ans, perr, err = t.exchangeCode(r, client, form)
	case "refresh_token":
		ans, perr, err = t.refresh(r, client, form)
	case "client_credentials":
		ans, perr, err = t.clientCredentials(client, form)
	}
	if err != nil {
		s.log().Error("token: the grant failed", "grant", grant, "clientId", client.ClientID, "error", err.Error())
		return nil, perr500()
	}
	if perr != nil {
		return nil, perr
	}
	if err := s.ClientStore.Touch(r.Context(), s.DB, client.ClientID, s.now()); err != nil {
		s.log().Warn("token: the client's last use could not be recorded", "clientId", client.ClientID, "error", err.Error())
	}
	return ans, nil
}

// authenticateClient authenticates the client of a token request with the
// method it registered (RFC 6749 §2.3): none (client_id in the body),
// client_secret_basic (form-decoded credentials) or client_secret_post.
func (s *Server) authenticateClient(r *http.Request, form url.Values) (*models.OAuthClient, *protocolError) {
	var (
		id, secret, method string
	)
	if h := r.Header.Get("Authorization"); h != "" {
		user, pass, ok := basicCredentials(h)
		if !ok {
			return nil, perr(http.StatusUnauthorized, "invalid_client", "the Authorization header is not Basic credentials")
		}
		id, secret, method = user, pass, "client_secret_basic"
		if form.Has("client_secret") {
			return nil, badRequest("invalid_request", "use one client authentication method")
		}
		if v := form.Get("client_id"); v != "" && v != id {
			return nil, badRequest("invalid_request", "client_id differs from the authenticated client")
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
		method = "none"
		if form.Has("client_secret") {
			method = "client_secret_post"
		}
	}
	if id == "" {
		return nil, perr(http.StatusUnauthorized, "invalid_client", "the client is not identified")
	}
	client, limited, err := s.requestClient(r, id)
	if limited != nil {
		return nil, limited
	}
	if notFound(err) {
		return nil, perr(http.StatusUnauthorized, "invalid_client", "unknown client")
	}
	if err != nil {
		s.log().Error("token: the client could not be read", "clientId", id, "error", err.Error())
		return nil, perr500()
	}
	if method != client.TokenEndpointAuthMethod {
		return nil, perr(http.StatusUnauthorized, "invalid_client", "the client must authenticate with "+client.TokenEndpointAuthMethod)
	}
	if method != "none" {
		if client.SecretHash == nil ||
			subtle.ConstantTimeCompare([]byte(auth.HashOpaqueToken(secret)), []byte(*client.SecretHash)) != 1 {
			return nil, perr(http.StatusUnauthorized, "invalid_client", "client authentication failed")
		}
	}
	return client, nil
}

// basicCredentials reads Basic credentials whose parts are form-encoded
// (RFC 6749 §2.3.1).
func basicCredentials(h string) (string, string, bool) {
	const prefix = "Basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[len(prefix):]))
	if err != nil {
		return "", "", false
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", false
	}
	u, err1 := url.QueryUnescape(user)
	p, err2 := url.QueryUnescape(pass)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	return u, p, true
}

// exchangeCode runs the authorization_code grant. The code is spent first
// (after its user's row is locked), in the transaction that opens the
// session, and stays spent whatever
// the checks find (a code presented by the wrong client, or with the
// wrong verifier, is burnt). A code spent before ends the session its
// first exchange opened.
func (t tokenEndpoint) exchangeCode(r *http.Request, client *models.OAuthClient, form url.Values) (*tokenAnswer, *protocolError, error) {
	s := t.s
	code, redirectURI, verifier := form.Get("code"), form.Get("redirect_uri"), form.Get("code_verifier")
	switch {
	case code == "":
		return nil, badRequest("invalid_request", "code is required"), nil
	case redirectURI == "":
		return nil, badRequest("invalid_request", "redirect_uri is required"), nil
	case verifier == "":
		return nil, badRequest("invalid_request", "code_verifier is required"), nil
	case !verifierPattern.MatchString(verifier):
		return nil, badRequest("invalid_request", "code_verifier is malformed"), nil
	case !codePattern.MatchString(code):
		return nil, badRequest("invalid_grant", "the code is invalid, expired or spent"), nil
	}
	var (
		failure  *protocolError
		replayed *models.OAuthCode
		sess     *models.Session
		raw      string
		c        *models.OAuthCode
		aud      string
	)
	hash := auth.HashOpaqueToken(code)
	ctx := r.Context()
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		failure, replayed, sess, raw = nil, nil, nil, ""
		// The client was read before this transaction: it is read again
		// under a share lock, so that a Disable under way either commits
		// first (the exchange is refused) or waits for this one (and then
		// ends the session it opens). The lock comes first, as Disable
		// takes the client before the users.
		if _, err := s.ClientStore.ShareEnabled(ctx, tx, client.ClientID); errors.Is(err, models.ErrNotFound) {
			failure = perr(http.StatusUnauthorized, "invalid_client", "the client is disabled")
			return nil
		} else if err != nil {
			return err
		}
		// The code's user is locked before the code, as revokeapp and a
		// client's disabling lock the user before its codes: the other
		// order deadlocks with them.
		seen, err := s.Store.CodeByHash(ctx, tx, hash)
		if errors.Is(err, models.ErrNotFound) {
			failure = badRequest("invalid_grant", "the code is invalid, expired or spent")
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := s.Users.Accounts.LockForUpdate(ctx, tx, seen.UserID); errors.Is(err, models.ErrNotFound) {
			failure = badRequest("invalid_grant", "the code is invalid, expired or spent")
			return nil
		} else if err != nil {
			return err
		}
		c, err = s.Store.SpendCode(ctx, tx, hash, s.now())
		switch {
		case errors.Is(err, models.ErrSpent):
			replayed = c
			return nil
		case errors.Is(err, models.ErrNotFound):
			failure = badRequest("invalid_grant", "the code is invalid, expired or spent")
			return nil
		case err != nil:
			return err
		}
		sum := sha256.Sum256([]byte(verifier))
		challenge := base64.RawURLEncoding.EncodeToString(sum[:])
		switch {
		case c.ClientID != client.ClientID:
			failure = badRequest("invalid_grant", "the code was issued to another client")
		case c.RedirectURI != redirectURI:
			failure = badRequest("invalid_grant", "redirect_uri differs from the authorization request's")
		case subtle.ConstantTimeCompare([]byte(challenge), []byte(c.CodeChallenge)) != 1:
			failure = badRequest("invalid_grant", "code_verifier does not match the code_challenge")
		}
		if failure != nil {
			return nil
		}
		aud, failure = t.audience(form.Get("resource"), c.Resources)
		if failure != nil {
			return nil
		}
		g := &models.OAuthGrant{ClientID: client.ClientID, Scopes: c.Scopes, Resources: c.Resources, Audience: aud}
		sess, raw, err = s.OAuthSessions.Open(ctx, tx, c.UserID, c.ApprovingSessionID, g, sessionOrigin(r))
		if errors.Is(err, accounts.ErrSessionEnded) {
			sess, failure = nil, badRequest("invalid_grant", "the session that approved has ended")
			return nil
		}
		if err != nil {
			return err
		}
		return s.Store.SetCodeSession(ctx, tx, c.ID, sess.SessionID)
	})
	if err != nil {
		return nil, nil, err
	}
	if replayed != nil {
		if replayed.SessionID != nil {
			if _, err := s.OAuthSessions.End(ctx, replayed.UserID, *replayed.SessionID); err != nil {
				return nil, nil, err
			}
			s.log().Warn("authorization code presented again: its session ended", "clientId", client.ClientID,
				"userId", replayed.UserID.String(), "sessionId", replayed.SessionID.String())
		}
		return nil, badRequest("invalid_grant", "the code is invalid, expired or spent"), nil
	}
	if failure != nil {
		return nil, failure, nil
	}
	acc, err := s.Users.Account(ctx, c.UserID)
	if err != nil {
		return nil, nil, err
	}
	nonce := ""
	if c.Nonce != nil {
		nonce = *c.Nonce
	}
	return t.issue(client, acc, sess, raw, c.Scopes, aud, nonce)
}

// audience returns the aud of the tokens of a grant that authorized resources:
// the requested resource (one of them), else the single one, else
// PUBLIC_URL when there are none.
func (t tokenEndpoint) audience(requested string, authorized []string) (string, *protocolError) {
	if requested != "" {
		norm, ok := ResourceURI(requested)
		if !ok || !slices.Contains(authorized, norm) {
			return "", badRequest("invalid_target", "the resource was not authorized")
		}
		return norm, nil
	}
	switch len(authorized) {
	case 0:
		return t.s.Issuer, nil
	case 1:
		return authorized[0], nil
	}
	return "", badRequest("invalid_target", "several resources were authorized: name one")
}

// issue signs the tokens of an OAuth session.
func (t tokenEndpoint) issue(client *models.OAuthClient, acc *models.Account, sess *models.Session, refresh string, scopes []string, aud, nonce string) (*tokenAnswer, *protocolError, error) {
	at, ttl, err := t.s.signAccessToken(accessToken{Subject: acc.ID.String(), Audience: aud, ClientID: client.ClientID,
		Scopes: scopes, Session: sess.SessionID, AuthTime: sess.AuthenticatedAt})
	if err != nil {
		return nil, nil, err
	}
	ans := &tokenAnswer{AccessToken: at, TokenType: "Bearer", ExpiresIn: int64(ttl / time.Second), Scope: strings.Join(scopes, " ")}
	if slices.Contains(client.GrantTypes, "refresh_token") {
		ans.RefreshToken = refresh
	}
	if slices.Contains(scopes, ScopeOpenID) {
		ans.IDToken, err = t.s.signIDToken(client, idToken{Account: acc, ClientID: client.ClientID, Session: sess.SessionID,
			AuthTime: sess.AuthenticatedAt, Methods: sess.Methods, Nonce: nonce, Scopes: scopes, AccessToken: at})
		if err != nil {
			return nil, nil, err
		}
	}
	return ans, nil, nil
}

// refresh runs the refresh_token grant: the scope may only narrow and the
// resource must be one of the granted, both checked before the token
// rotates (a refused request leaves the token good).
func (t tokenEndpoint) refresh(r *http.Request, client *models.OAuthClient, form url.Values) (*tokenAnswer, *protocolError, error) {
	s := t.s
	raw := form.Get("refresh_token")
	if raw == "" {
		return nil, badRequest("invalid_request", "refresh_token is required"), nil
	}
	ctx := r.Context()
	if auth.WellFormedOpaqueToken(raw) {
		sess, err := s.Users.Sessions.ByHash(ctx, s.DB, auth.HashOpaqueToken(raw))
		if err != nil && !notFound(err) {
			return nil, nil, err
		}
		if err == nil && sess.Client == models.ClientOAuth {
			g, err := s.Store.GrantBySession(ctx, s.DB, sess.SessionID)
			if err != nil && !notFound(err) {
				return nil, nil, err
			}
			if err == nil && g.ClientID == client.ClientID {
				if _, _, perr := narrowed(g, form); perr != nil {
					return nil, perr, nil
				}
			}
		}
	}
	out, err := s.OAuthSessions.Refresh(ctx, raw, client.ClientID, sessionOrigin(r))
	if le, ok := errors.AsType[*accounts.LimitedError](err); ok {
		e := perr(http.StatusTooManyRequests, "temporarily_unavailable", "too many requests; retry later")
		e.retry = le.RetryAfter
		return nil, e, nil
	}
	if errors.Is(err, accounts.ErrInvalidRefresh) {
		return nil, badRequest("invalid_grant", "the refresh token is invalid, expired or revoked"), nil
	}
	if err != nil {
		return nil, nil, err
	}
	scopes, aud, perr := narrowed(out.Grant, form)
	if perr != nil {
		// The grant changed between the check and the rotation: the new
		// token stays unused.
		return nil, perr, nil
	}
	if aud != out.Grant.Audience {
		if err := s.Store.SetGrantAudience(ctx, s.DB, out.Grant.SessionID, aud); err != nil {
			return nil, nil, err
		}
	}
	return t.issue(client, out.Account, out.Session, out.RefreshToken, scopes, aud, "")
}

// narrowed returns the scopes and audience a refresh asks of grant g: a
// scope within the granted (else invalid_scope), a resource among the
// granted (else invalid_target; none keeps the previous audience).
func narrowed(g *models.OAuthGrant, form url.Values) ([]string, string, *protocolError) {
	scopes := []string(g.Scopes)
	if form.Has("scope") {
		asked := dedupe(strings.Fields(form.Get("scope")))
		if len(asked) == 0 {
			return nil, "", badRequest("invalid_scope", "scope is empty")
		}
		for _, sc := range asked {
			if !slices.Contains(g.Scopes, sc) {
				return nil, "", badRequest("invalid_scope", "a requested scope was not granted")
			}
		}
		scopes = asked
	}
	aud := g.Audience
	if v := form.Get("resource"); v != "" {
		norm, ok := ResourceURI(v)
		if !ok || !slices.Contains(g.Resources, norm) {
			return nil, "", badRequest("invalid_target", "the resource was not granted")
		}
		aud = norm
	}
	return scopes, aud, nil
}

// clientCredentials runs the client_credentials grant of a confidential
// client: a token whose subject is the client, without refresh or ID
// token.
func (t tokenEndpoint) clientCredentials(client *models.OAuthClient, form url.Values) (*tokenAnswer, *protocolError, error) {
	s := t.s
	if client.Public() {
		return nil, badRequest("unauthorized_client", "a public client cannot use client_credentials"), nil
	}
	scopes, perr := s.requestedScopes(client, form.Get("scope"), form.Has("scope"))
	if perr != nil {
		return nil, perr, nil
	}
	aud := s.Issuer
	if v := form.Get("resource"); v != "" {
		norm, ok := ResourceURI(v)
		if !ok || !slices.Contains(s.Resources, norm) {
			return nil, badRequest("invalid_target", "the resource is not served by this authorization server"), nil
		}
		aud = norm
	}
	at, ttl, err := s.signAccessToken(accessToken{Subject: client.ClientID, Audience: aud, ClientID: client.ClientID, Scopes: scopes})
	if err != nil {
		return nil, nil, err
	}
	return &tokenAnswer{AccessToken: at, TokenType: "Bearer", ExpiresIn: int64(ttl / time.Second),
		Scope: strings.Join(scopes, " ")}, nil, nil
}

// sessionOrigin returns where a token request comes from, for the rows
// of the session it opens or rotates.
func sessionOrigin(r *http.Request) accounts.Origin {
	return accounts.Origin{Platform: models.ClientOAuth, IP: framework.ClientIP(r), UserAgent: r.UserAgent()}
}
