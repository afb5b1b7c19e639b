package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/actionkit/actionkit/models"
)

// goRP is a Go relying party of one client: go-oidc for discovery, the
// ID token and userinfo, x/oauth2 for the code flow with PKCE. Neither
// library revokes, introspects or logs out, so those are the RFC 7009,
// RFC 7662 and RP-Initiated Logout requests an application built on them
// sends to the endpoints discovery names, with the client's credentials.
type goRP struct {
	provider  *oidc.Provider
	cfg       oauth2.Config
	callback  *relyingParty
	endpoints struct {
		Revocation    string `json:"revocation_endpoint"`
		Introspection string `json:"introspection_endpoint"`
		EndSession    string `json:"end_session_endpoint"`
	}
}

// newGoRP discovers s for the client and listens for its callback on
// loopback.
func newGoRP(t *testing.T, s *oauthServer, clientID, secret string) *goRP {
	t.Helper()
	provider, err := oidc.NewProvider(t.Context(), s.issuer)
	if err != nil {
		t.Fatal(err)
	}
	g := &goRP{provider: provider, callback: newRelyingParty(t)}
	if err := provider.Claims(&g.endpoints); err != nil || g.endpoints.Revocation == "" || g.endpoints.Introspection == "" || g.endpoints.EndSession == "" {
		t.Fatalf("discovery endpoints %+v: %v", g.endpoints, err)
	}
	g.cfg = oauth2.Config{ClientID: clientID, ClientSecret: secret, Endpoint: provider.Endpoint(),
		RedirectURL: g.callback.callback, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
	g.cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	return g
}

// signIn runs the code flow with PKCE and a nonce for u in b, approving
// through the interaction API, and returns the tokens and the verified ID
// token.
func (g *goRP) signIn(t *testing.T, b *browser, u *registered) (*oauth2.Token, *oidc.IDToken, string) {
	t.Helper()
	ctx := t.Context()
	verifier, nonce := oauth2.GenerateVerifier(), "n-"+oauth2.GenerateVerifier()[:12]
	res, body := b.get(t, g.cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce)))
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.StatusCode, body)
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	r := b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": loc.Query().Get("oauth_request")}, u.auth()...)
	r.want(t, 200, "")
	if _, err := b.http.Get(r.str("redirectTo")); err != nil {
		t.Fatal(err)
	}
	var q url.Values
	select {
	case q = <-g.callback.queries:
	case <-time.After(10 * time.Second):
		t.Fatal("the callback was not reached")
	}
	tok, err := g.cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	id, err := g.provider.Verifier(&oidc.Config{ClientID: g.cfg.ClientID}).Verify(ctx, raw)
	if err != nil || id.Nonce != nonce {
		t.Fatalf("ID token: %v (nonce %q)", err, id.Nonce)
	}
	return tok, id, raw
}

// post sends form to endpoint with the client's Basic credentials
// (form-encoded first, RFC 6749 §2.3.1) and decodes the JSON answer.
func (g *goRP) post(t *testing.T, endpoint string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(g.cfg.ClientID), url.QueryEscape(g.cfg.ClientSecret))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// introspect asks the introspection endpoint about token.
func (g *goRP) introspect(t *testing.T, token string) map[string]any {
	t.Helper()
	st, out := g.post(t, g.endpoints.Introspection, url.Values{"token": {token}})
	if st != 200 {
		t.Fatalf("introspect: %d %v", st, out)
	}
	return out
}

// revoke revokes token (with its type hint).
func (g *goRP) revoke(t *testing.T, token, hint string) {
	t.Helper()
	if st, out := g.post(t, g.endpoints.Revocation, url.Values{"token": {token}, "token_type_hint": {hint}}); st != 200 {
		t.Fatalf("revoke: %d %v", st, out)
	}
}

// logoutURL is the end-session URL for the ID token.
func (g *goRP) logoutURL(idToken, postLogout, state string) string {
	return g.endpoints.EndSession + "?" + url.Values{"id_token_hint": {idToken}, "post_logout_redirect_uri": {postLogout},
		"state": {state}, "client_id": {g.cfg.ClientID}}.Encode()
}

// userinfoWorks reports whether userinfo answers for tok.
func (g *goRP) userinfoWorks(ctx context.Context, tok *oauth2.Token) bool {
	_, err := g.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	return err == nil
}

// TestOAuthGoRelyingPartyRevokeIntrospectLogout: the Go relying party
// (go-oidc, x/oauth2) introspects its live access and refresh tokens (every
// §19 member, the sid that of its ID token); a dynamic client introspecting
// that token learns nothing but active:false; revoking the refresh token
// ends the session (userinfo refused, the access token inactive);
// RP-initiated logout with the ID token as hint ends that OAuth session
// only and redirects an admin client to its post-logout URI with state,
// while a dynamic client gets a page with a link and no redirect.
func TestOAuthGoRelyingPartyRevokeIntrospectLogout(t *testing.T) {
	s := startOAuthServer(t)
	ctx := t.Context()
	bye := "https://app.example/bye"
	loopback := []string{"http://127.0.0.1/cb"}
	adminID, adminSecret := s.addClient(t, oauthClientSpec{redirectURIs: loopback, postLogout: []string{bye}})
	dynID, dynSecret := s.addClient(t, oauthClientSpec{redirectURIs: loopback, postLogout: []string{bye}, source: models.OAuthClientDynamic})
	admin, dyn := newGoRP(t, s, adminID, adminSecret), newGoRP(t, s, dynID, dynSecret)
	b := s.browser()
	u := loginUser(t, b)

	tok, id, _ := admin.signIn(t, b, u)
	var idClaims struct {
		Sid string `json:"sid"`
	}
	if err := id.Claims(&idClaims); err != nil || idClaims.Sid == "" {
		t.Fatalf("ID token sid: %v", err)
	}
	in := admin.introspect(t, tok.AccessToken)
	if in["active"] != true || in["scope"] != "openid email profile" || in["client_id"] != adminID || in["sub"] != u.id ||
		in["aud"] != s.issuer || in["iss"] != s.issuer || in["token_type"] != "Bearer" || in["sid"] != idClaims.Sid ||
		in["exp"] == nil || in["iat"] == nil {
		t.Fatalf("introspection of the live access token: %v", in)
	}
	if in := admin.introspect(t, tok.RefreshToken); in["active"] != true || in["token_type"] != "refresh_token" || in["sid"] != idClaims.Sid {
		t.Fatalf("introspection of the live refresh token: %v", in)
	}
	if in := dyn.introspect(t, tok.AccessToken); len(in) != 1 || in["active"] != false {
		t.Fatalf("a dynamic client introspecting another client's token: %v", in)
	}
	if !admin.userinfoWorks(ctx, tok) {
		t.Fatal("userinfo refused a live token")
	}
	admin.revoke(t, tok.RefreshToken, "refresh_token")
	if admin.userinfoWorks(ctx, tok) {
		t.Fatal("userinfo answered after the refresh token was revoked")
	}
	if in := admin.introspect(t, tok.AccessToken); len(in) != 1 || in["active"] != false {
		t.Fatalf("introspection after revocation: %v", in)
	}
	if _, err := admin.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
		t.Fatal("a revoked refresh token refreshed")
	}

	// RP-initiated logout, admin client: a redirect with state.
	tok, _, rawID := admin.signIn(t, b, u)
	res, body := b.get(t, admin.logoutURL(rawID, bye, "s-77"))
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != bye+"?state=s-77" {
		t.Fatalf("logout of an admin client: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if admin.userinfoWorks(ctx, tok) {
		t.Fatal("userinfo answered after logout")
	}
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")

	// A dynamic client: a page with a link, never a redirect.
	tok, _, rawID = dyn.signIn(t, b, u)
	res, body = b.get(t, dyn.logoutURL(rawID, bye, "s-78"))
	if res.StatusCode != http.StatusOK || res.Header.Get("Location") != "" || !strings.Contains(body, `href="`+bye) {
		t.Fatalf("logout of a dynamic client: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if dyn.userinfoWorks(ctx, tok) {
		t.Fatal("userinfo answered after a dynamic client's logout")
	}
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")
}
