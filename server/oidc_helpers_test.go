package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/oidctest"
)

// The public URL of the servers of the identity-provider tests: the
// provider sends the browser to its callback, and the test delivers that
// request to the server it started.
const (
	oidcPublic  = "https://app.test"
	oidcLanding = oidcPublic + "/demo"
)

// oidcWorld is a real provider and a server configured with it: as
// provider "idp" (e-mail not trusted) and as provider "trusted" (e-mail
// trusted, automatic linking), both at the same issuer.
type oidcWorld struct {
	t testing.TB
	p *oidctest.Provider
	s *testServer
}

var subSeq atomic.Int64

// newSub returns an account id at the provider unique to the run.
func newSub() string { return fmt.Sprintf("person-%d-%d", time.Now().UnixNano(), subSeq.Add(1)) }

// newOIDCWorld starts the provider and a server (the API role, with the
// clock now when not nil) with the settings overrides.
func newOIDCWorld(t testing.TB, now func() time.Time, overrides ...string) *oidcWorld {
	t.Helper()
	return newOIDCWorldRoles(t, now, []string{"api"}, overrides...)
}

// newOIDCWorldRoles is newOIDCWorld with the server's roles (nil: all,
// for the mails).
func newOIDCWorldRoles(t testing.TB, now func() time.Time, roles []string, overrides ...string) *oidcWorld {
	t.Helper()
	return newOIDCWorldWith(t, oidctest.Options{}, now, roles, overrides...)
}

// newOIDCWorldWith is newOIDCWorldRoles with the provider's options (its
// redirect URI is the server's callback).
func newOIDCWorldWith(t testing.TB, opts oidctest.Options, now func() time.Time, roles []string, overrides ...string) *oidcWorld {
	t.Helper()
	opts.RedirectURI = oidcPublic + "/v1/users/oidc/callback"
	p := oidctest.Start(t, opts)
	env := testEnv(t, append([]string{"PUBLIC_URL=" + oidcPublic, "OIDC_PROVIDERS=idp,trusted",
		"OIDC_IDP_ISSUER=" + p.Issuer, "OIDC_IDP_CLIENT_ID=" + p.ClientID, "OIDC_IDP_CLIENT_SECRET=" + p.ClientSecret,
		"OIDC_IDP_NAME=Test IdP",
		"OIDC_TRUSTED_ISSUER=" + p.Issuer, "OIDC_TRUSTED_CLIENT_ID=" + p.ClientID, "OIDC_TRUSTED_CLIENT_SECRET=" + p.ClientSecret,
		"OIDC_TRUSTED_TRUST_EMAIL=true", "OIDC_TRUSTED_AUTO_LINK=true"}, overrides...)...)
	return &oidcWorld{t: t, p: p, s: startServerClock(t, env, now, roles...)}
}

// person sets up an account at the provider and returns its sub.
func (w *oidcWorld) person(claims map[string]any) string {
	sub := newSub()
	w.p.SetAccount(sub, claims)
	return sub
}

// start begins a sign-in with c at provider and returns the provider's
// URL (args may add codeChallenge, or replace redirectTo).
func (w *oidcWorld) start(c *client, provider string, args map[string]any, headers ...string) string {
	w.t.Helper()
	body := map[string]any{"provider": provider, "redirectTo": oidcLanding}
	for k, v := range args {
		body[k] = v
	}
	r := c.call(http.MethodPost, "/v1/users/oidc/start", body, headers...).want(w.t, 200, "")
	return r.str("url")
}

// atProvider signs in as sub at the provider in c's browser and returns
// the callback URL the provider sends the browser to.
func (w *oidcWorld) atProvider(c *client, authURL, sub string) string {
	w.t.Helper()
	cb, err := w.p.SignIn(c.http, authURL, sub, false)
	if err != nil {
		w.t.Fatal(err)
	}
	return cb
}

// callback delivers the provider's redirect to the server with c and
// returns the answer (a 302, unless the state names no flow).
func (w *oidcWorld) callback(c *client, providerRedirect string) *apiResponse {
	w.t.Helper()
	u, err := url.Parse(providerRedirect)
	if err != nil {
		w.t.Fatal(err)
	}
	h := *c.http
	h.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cc := &client{t: c.t, base: c.base, http: &h}
	return cc.call(http.MethodGet, u.Path+"?"+u.RawQuery, nil)
}

// landing reads the fragment the callback answer sends the browser to.
func (w *oidcWorld) landing(r *apiResponse) url.Values {
	w.t.Helper()
	return w.landingAt(r, oidcLanding)
}

// landingAt reads the fragment of the callback answer's redirect to page.
func (w *oidcWorld) landingAt(r *apiResponse, page string) url.Values {
	w.t.Helper()
	loc := r.Header.Get("Location")
	if r.Status != http.StatusFound || !strings.HasPrefix(loc, page+"#") {
		w.t.Fatalf("callback: got %d to %q, want a 302 to %s#...: %s", r.Status, loc, page, r.Raw)
	}
	v, err := url.ParseQuery(strings.TrimPrefix(loc, page+"#"))
	if err != nil {
		w.t.Fatal(err)
	}
	return v
}

// signIn runs a whole sign-in of sub with c at provider up to the landing.
func (w *oidcWorld) signIn(c *client, provider, sub string) url.Values {
	w.t.Helper()
	return w.landing(w.callback(c, w.atProvider(c, w.start(c, provider, nil), sub)))
}

// wantError checks a landing's error code.
func wantLandingError(t testing.TB, v url.Values, code string) {
	t.Helper()
	if v.Get("error") != code || v.Get("oidc") != "" {
		t.Fatalf("landing %v: want error %s and no result code", v, code)
	}
}

// exchange trades a result code with c.
func (w *oidcWorld) exchange(c *client, code string, args map[string]any, headers ...string) *apiResponse {
	w.t.Helper()
	body := map[string]any{"code": code}
	for k, v := range args {
		body[k] = v
	}
	return c.call(http.MethodPost, "/v1/users/oidc/exchange", body, headers...)
}

// login signs sub in through provider with a new browser and exchanges
// the result: the registered user it logs in.
func (w *oidcWorld) login(provider, sub string) *registered {
	w.t.Helper()
	c := w.s.client()
	v := w.signIn(c, provider, sub)
	if v.Get("oidc") == "" {
		w.t.Fatalf("landing %v: want a result code", v)
	}
	r := w.exchange(c, v.Get("oidc"), nil).want(w.t, 201, "")
	u := r.obj("user")
	return &registered{c: c, email: fmt.Sprint(u["email"]), id: fmt.Sprint(u["id"]), token: r.str("token"), res: r}
}

// count runs a count query on the server's database.
func (w *oidcWorld) count(query string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.s.db().GetContext(w.t.Context(), &n, query, args...); err != nil {
		w.t.Fatal(err)
	}
	return n
}
