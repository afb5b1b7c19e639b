package oauthserver

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// userinfo is GET|POST /oauth2/userinfo: the user claims of the granted
// scopes, for a live access token whose aud is the issuer and whose scope
// has openid. A token of an ended session is refused at once.
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	raw, ok := bearer(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+s.Issuer+`"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "a Bearer access token is required"})
		return
	}
	invalid := func(why string) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+why+`"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": why})
	}
	ctx := r.Context()
	t, err := s.verifyAccessToken(ctx, raw)
	if errors.Is(err, errInvalidToken) {
		invalid("the access token is invalid or expired")
		return
	}
	if err != nil {
		s.log().Error("userinfo: the token could not be verified", "error", err.Error())
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "retry later"})
		return
	}
	if !sameResource(t.Audience, s.Issuer) || t.Session == uuid.Nil {
		invalid("the access token is not for userinfo")
		return
	}
	user, err := uuid.Parse(t.Subject)
	if err != nil {
		invalid("the access token is not a user's")
		return
	}
	p, err := s.Users.Load(ctx, user, t.Session, action.Needs{})
	if errors.Is(err, auth.ErrUnknownOwner) || errors.Is(err, auth.ErrSessionEnded) {
		invalid("the session has ended")
		return
	}
	if err != nil {
		s.log().Error("userinfo: the session could not be read", "error", err.Error())
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable", "error_description": "retry later"})
		return
	}
	if !slices.Contains(t.Scopes, ScopeOpenID) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="openid"`)
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope", "error_description": "the token has no openid scope"})
		return
	}
	acc, ok := p.Record.(*models.Account)
	if !ok {
		invalid("the session has ended")
		return
	}
	out := userClaims(acc, t.Scopes)
	out["sub"] = acc.ID.String()
	writeJSON(w, http.StatusOK, out)
}

// bearer reads the Bearer token of the Authorization header (RFC 6750
// §2.1; the body and query forms are not accepted).
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}

// sameResource reports whether a and b are one URI in the WHATWG
// serialization (https://id.example.com and https://id.example.com/ are).
func sameResource(a, b string) bool {
	na, ok := ResourceURI(a)
	nb, ok2 := ResourceURI(b)
	return ok && ok2 && na == nb
}
