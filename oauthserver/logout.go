package oauthserver

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/auth"
)

// logout is GET /oauth2/logout (OpenID RP-Initiated Logout 1.0): the
// session of the ID token hint's sid (that OAuth session only) ends, and
// the browser goes to post_logout_redirect_uri (registered exactly for
// the hint's client) with state: by a redirect for an admin client, by a
// page with a link for a dynamic or metadata client. An invalid hint or
// URI is a 400 page, never a redirect.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, badRequest("invalid_request", "the request could not be read"))
		return
	}
	q := r.Form
	ctx := r.Context()
	clientID, user, session, perr := s.idTokenHint(r, q.Get("id_token_hint"))
	if perr != nil {
		s.errorPage(w, r, perr)
		return
	}
	client, err := s.lookupClient(ctx, clientID)
	if notFound(err) {
		s.errorPage(w, r, badRequest("invalid_request", "the id_token_hint's client is unknown"))
		return
	}
	if err != nil {
		s.errorPage(w, r, perr500())
		return
	}
	target := q.Get("post_logout_redirect_uri")
	if target != "" && !slices.Contains(client.PostLogoutRedirectURIs, target) {
		s.errorPage(w, r, badRequest("invalid_request", "post_logout_redirect_uri is not registered for this client"))
		return
	}
	g, err := s.Store.GrantBySession(ctx, s.DB, session)
	if err != nil && !notFound(err) {
		s.errorPage(w, r, perr500())
		return
	}
	if err == nil && g.ClientID == clientID && g.UserID == user {
		if _, err := s.OAuthSessions.End(ctx, user, session); err != nil {
			s.log().Error("logout: the session could not be ended", "error", err.Error())
			s.errorPage(w, r, perr500())
			return
		}
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	if target == "" {
		s.loggedOutPage(w, "", client.Name)
		return
	}
	if st := q.Get("state"); st != "" {
		target = withQuery(target, url.Values{"state": {st}})
	}
	if client.Verified() {
		http.Redirect(w, r, target, http.StatusFound)
		return
	}
	s.loggedOutPage(w, target, client.Name)
}

// loggedOutPage answers the page of a completed logout, with a link back
// to target when there is one.
func (s *Server) loggedOutPage(w http.ResponseWriter, target, name string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signed out</title></head><body>"+
		"<h1>You are signed out of %s</h1>", html.EscapeString(name))
	if target != "" {
		fmt.Fprintf(w, "<p><a href=\"%s\" rel=\"noreferrer\">Continue to %s</a></p>", html.EscapeString(target),
			html.EscapeString(hostOf(target)))
	}
	fmt.Fprint(w, "</body></html>\n")
}

// hostOf is the host of u, for a link's label.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return u
	}
	return p.Host
}

// idTokenHint verifies hint as an ID token this server issued (signature
// with a published key, typ JWT, iss; an expired one is accepted) and
// returns its client (aud), user (sub) and session (sid).
func (s *Server) idTokenHint(r *http.Request, hint string) (string, uuid.UUID, uuid.UUID, *protocolError) {
	bad := badRequest("invalid_request", "id_token_hint is missing or is not an ID token of this server")
	if hint == "" || len(hint) > auth.MaxTokenBytes {
		return "", uuid.Nil, uuid.Nil, bad
	}
	var failure error
	parser := jwt.NewParser(jwt.WithValidMethods([]string{RS256, auth.EdDSA, auth.ES256}),
		jwt.WithoutClaimsValidation(), jwt.WithStrictDecoding())
	claims := jwt.MapClaims{}
	_, err := parser.ParseWithClaims(hint, claims, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != typIDToken {
			return nil, errors.New("not an ID token")
		}
		kid, _ := t.Header["kid"].(string)
		k, err := s.Keys.VerifyKey(r.Context(), kid)
		if err != nil && t.Method.Alg() == RS256 && s.IDKeys != nil {
			// The current ID-token key, should the ring not verify with it.
			if idk, ierr := s.IDKeys.IDTokenKey(); ierr == nil && idk.ID == kid {
				k, err = idk, nil
			}
		}
		if err != nil {
			if !errors.Is(err, auth.ErrUnknownKey) {
				failure = err
			}
			return nil, err
		}
		if k.Alg != t.Method.Alg() {
			return nil, errors.New("algorithm mismatch")
		}
		return k.Public, nil
	})
	if failure != nil {
		return "", uuid.Nil, uuid.Nil, perr500()
	}
	if err != nil {
		return "", uuid.Nil, uuid.Nil, bad
	}
	iss, _ := claims["iss"].(string)
	aud, _ := claims["aud"].(string)
	sub, _ := claims["sub"].(string)
	sid, _ := claims["sid"].(string)
	user, err1 := uuid.Parse(sub)
	session, err2 := uuid.Parse(sid)
	if iss != s.Issuer || aud == "" || err1 != nil || err2 != nil {
		return "", uuid.Nil, uuid.Nil, bad
	}
	return aud, user, session, nil
}
