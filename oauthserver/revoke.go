package oauthserver

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// protocolForm reads the form body of a protocol endpoint that
// authenticates its client (revoke, introspect), refusing repeated
// parameters, and authenticates the client.
func (s *Server) protocolForm(w http.ResponseWriter, r *http.Request) (*models.OAuthClient, url.Values, *protocolError) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return nil, nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	if err := r.ParseForm(); err != nil {
		return nil, nil, badRequest("invalid_request", "the body could not be read")
	}
	form := r.PostForm
	for _, vs := range form {
		if len(vs) > 1 {
			return nil, nil, badRequest("invalid_request", "a parameter is given more than once")
		}
	}
	client, perr := s.authenticateClient(r, form)
	if perr != nil {
		return nil, nil, perr
	}
	if form.Get("token") == "" {
		return nil, nil, badRequest("invalid_request", "token is required")
	}
	return client, form, nil
}

// answerProtocolError writes perr, counting a failed client
// authentication in the rate class.
func (s *Server) answerProtocolError(w http.ResponseWriter, r *http.Request, perr *protocolError) {
	if perr.code == "invalid_client" {
		if s.Limits != nil {
			s.Limits.Failure(r)
		}
		if strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+s.Issuer+`"`)
		}
	}
	writeJSON(w, perr.status, map[string]string{"error": perr.code, "error_description": perr.description})
}

// heldToken is what a token presented to revoke or introspect names: an
// OAuth session (with its grant) or a client's own access token.
type heldToken struct {
	// Session is the OAuth session (a chain) and User its owner, for a
	// user's token; Grant is its grant.
	Session uuid.UUID
	User    uuid.UUID
	Grant   *models.OAuthGrant
	// Access is the verified access token, nil for a refresh token.
	Access *verifiedToken
	// Refresh is the session row of a refresh token.
	Refresh *models.Session
}

// ClientID is the client the token was issued to.
func (h *heldToken) ClientID() string {
	if h.Grant != nil {
		return h.Grant.ClientID
	}
	return h.Access.ClientID
}

// hold finds what raw names: a refresh token of an OAuth session (in any
// state), or an access token of this issuer that verifies (expired ones
// are nil), of an enabled client when it has no session. Anything else is
// nil.
func (s *Server) hold(ctx context.Context, raw string) (*heldToken, error) {
	if auth.WellFormedOpaqueToken(raw) {
		sess, err := s.Users.Sessions.ByHash(ctx, s.DB, auth.HashOpaqueToken(raw))
		if notFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if sess.Client != models.ClientOAuth {
			return nil, nil
		}
		g, err := s.Store.GrantBySession(ctx, s.DB, sess.SessionID)
		if notFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &heldToken{Session: sess.SessionID, User: sess.OwnerID, Grant: g, Refresh: sess}, nil
	}
	t, err := s.verifyAccessToken(ctx, raw)
	if errors.Is(err, errInvalidToken) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h := &heldToken{Access: t, Session: t.Session}
	if t.Session == uuid.Nil {
		// A client's own token (client_credentials) has no session to
		// end: it lives only while its client is enabled.
		if _, err := s.lookupClient(ctx, t.ClientID); notFound(err) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		return h, nil
	}
	if h.User, err = uuid.Parse(t.Subject); err != nil {
		return nil, nil
	}
	g, err := s.Store.GrantBySession(ctx, s.DB, t.Session)
	if notFound(err) || (err == nil && g.ClientID != t.ClientID) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h.Grant = g
	return h, nil
}

// revoke is POST /oauth2/revoke (RFC 7009): an access or refresh token of
// the authenticated client ends its whole OAuth session. Any well-formed
// request is 200, for an unknown token or another client's too (which
// stays untouched).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if s.Limits != nil {
		if retry, ok := s.Limits.Attempt(r); !ok {
			tooMany(w, retry)
			return
		}
	}
	client, form, perr := s.protocolForm(w, r)
	if perr != nil {
		s.answerProtocolError(w, r, perr)
		return
	}
	ctx := r.Context()
	h, err := s.hold(ctx, form.Get("token"))
	if err == nil && h != nil && h.Session != uuid.Nil && h.ClientID() == client.ClientID {
		_, err = s.OAuthSessions.End(ctx, h.User, h.Session)
	}
	if err != nil {
		s.log().Error("revoke: the token could not be revoked", "clientId", client.ClientID, "error", err.Error())
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "retry later"})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// introspect is POST /oauth2/introspect (RFC 7662), for confidential
// clients: {active:false} for anything not live, and for another client's
// token unless the caller was registered by an admin (resource servers
// are; anyone can register a dynamic client, which must learn nothing of
// others' tokens).
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	if s.Limits != nil {
		if retry, ok := s.Limits.Attempt(r); !ok {
			tooMany(w, retry)
			return
		}
	}
	client, form, perr := s.protocolForm(w, r)
	if perr == nil && client.Public() {
		perr = perr401("introspection is for confidential clients")
	}
	if perr != nil {
		s.answerProtocolError(w, r, perr)
		return
	}
	ctx := r.Context()
	inactive := map[string]any{"active": false}
	h, err := s.hold(ctx, form.Get("token"))
	if err != nil {
		s.log().Error("introspect: the token could not be read", "error", err.Error())
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "retry later"})
		return
	}
	if h == nil || (h.ClientID() != client.ClientID && !client.Verified()) {
		writeJSON(w, http.StatusOK, inactive)
		return
	}
	out := map[string]any{"active": true, "client_id": h.ClientID(), "iss": s.Issuer}
	if h.Session != uuid.Nil {
		_, err := s.Users.Load(ctx, h.User, h.Session, action.Needs{})
		if errors.Is(err, auth.ErrUnknownOwner) || errors.Is(err, auth.ErrSessionEnded) {
			writeJSON(w, http.StatusOK, inactive)
			return
		}
		if err != nil {
			s.log().Error("introspect: the session could not be read", "error", err.Error())
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "retry later"})
			return
		}
		out["sid"] = h.Session.String()
		out["sub"] = h.User.String()
	}
	if h.Refresh != nil {
		if h.Refresh.State(s.now()) != models.SessionActive {
			writeJSON(w, http.StatusOK, inactive)
			return
		}
		out["token_type"] = "refresh_token"
		out["scope"] = strings.Join(h.Grant.Scopes, " ")
		out["aud"] = h.Grant.Audience
		out["iat"] = h.Refresh.CreatedAt.Unix()
		out["exp"] = h.Refresh.ExpiresAt.Unix()
	} else {
		t := h.Access
		out["token_type"] = "Bearer"
		out["scope"] = strings.Join(t.Scopes, " ")
		out["aud"] = t.Audience
		out["iat"] = t.IssuedAt
		out["exp"] = t.ExpiresAt
		out["sub"] = t.Subject
	}
	writeJSON(w, http.StatusOK, out)
}

func perr401(description string) *protocolError {
	return perr(http.StatusUnauthorized, "invalid_client", description)
}
