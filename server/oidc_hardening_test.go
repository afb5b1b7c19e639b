package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/actionkit/actionkit/internal/oidctest"
)

// wantRedirectRefused checks a 400 that names redirectTo.
func wantRedirectRefused(t *testing.T, r *apiResponse, what string) {
	t.Helper()
	r.want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := r.obj("fields")["redirectTo"]; !ok {
		t.Errorf("%s: fields %v, want redirectTo", what, r.Body["fields"])
	}
}

// TestOIDCAppReturnsToAppSchemeOnly: an app's flow, bound to no browser,
// may return only to an allowed app scheme, never to an allowed web
// origin, at start, at link and again at the callback; a web flow still
// returns to the web origin.
func TestOIDCAppReturnsToAppSchemeOnly(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil, "OIDC_REDIRECT_ORIGINS=https://app.test,com.example.app:")
	app := w.s.client()
	challenge := s256("app-verifier-0123456789-abcdefghijklmnopqrstuvwxyz")
	start := func(to string) *apiResponse {
		return app.call(http.MethodPost, "/v1/users/oidc/start",
			map[string]any{"provider": "idp", "redirectTo": to, "codeChallenge": challenge}, "X-Client", "app")
	}
	wantRedirectRefused(t, start(oidcLanding), "an app's start to a web page")
	start("com.example.app:/oauth").want(t, 200, "")
	w.start(w.s.client(), "idp", nil) // the web returns to the web page

	u := register(t, w.s.client(), "app")
	link := func(to string) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/oidc/link", map[string]any{"provider": "idp", "redirectTo": to},
			append(u.auth(), "X-Client", "app")...)
	}
	wantRedirectRefused(t, link(oidcLanding), "an app's link to a web page")
	link("com.example.app:/linked").want(t, 200, "")

	browser := w.s.client()
	authURL := start("com.example.app:/oauth").want(t, 200, "").str("url")
	cb := w.atProvider(browser, authURL, w.person(map[string]any{"email": uniqueEmail()}))
	sqlExec(t, w.s.db(), `UPDATE oidc_flows SET redirect_to = $1 WHERE client = 'app'`, oidcLanding)
	r := w.callback(browser, cb).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if loc := r.Header.Get("Location"); loc != "" {
		t.Errorf("the callback of an app's flow that returns to a web page: redirected to %q", loc)
	}
	if n := w.count(`SELECT count(*) FROM users`); n != 1 {
		t.Errorf("users: %d, want only the registered one", n)
	}
}

// TestOIDCGarbledEmailClaim: an e-mail claim over 254 characters, or with
// a NUL, or that is no address, counts as absent: a known identity still
// signs in (its stored address cleared), and an unknown one lands with
// PROVIDER_ERROR (no usable address), never a 500.
func TestOIDCGarbledEmailClaim(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	email := uniqueEmail()
	sub := w.person(map[string]any{"email": email, "email_verified": true})
	first := w.login("idp", sub)
	garbled := []string{strings.Repeat("a", 250) + "@example.com", "a\x00b@example.com", "Someone <" + email + ">"}
	for _, claim := range garbled {
		w.p.SetAccount(sub, map[string]any{"email": claim, "email_verified": true})
		again := w.login("idp", sub)
		if again.id != first.id || again.email != email {
			t.Errorf("claim %q: user %s %s, want %s %s", claim, again.id, again.email, first.id, email)
		}
		if n := w.count(`SELECT count(*) FROM user_identities WHERE subject = $1 AND email IS NULL AND NOT email_verified`, sub); n != 1 {
			t.Errorf("claim %q: the identity's address is not cleared", claim)
		}
	}
	for _, claim := range garbled {
		v := w.signIn(w.s.client(), "trusted", w.person(map[string]any{"email": claim, "email_verified": true}))
		wantLandingError(t, v, "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	}
	if n := w.count(`SELECT count(*) FROM users`); n != 1 {
		t.Errorf("users: %d, want 1", n)
	}
}

// plant sets the oidc-flow cookie of c to value, as a sibling subdomain
// can for the whole site.
func plant(t *testing.T, c *client, value string) {
	t.Helper()
	u, err := url.Parse(c.base + "/v1/users/oidc/")
	if err != nil {
		t.Fatal(err)
	}
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "oidc-flow", Value: value, Path: "/v1/users/oidc/"}})
}

// TestOIDCFlowBindingIsFresh: a flow started in a browser holding a
// planted oidc-flow value is bound to a new value, so the planter cannot
// finish it with the value it planted; flows of several tabs of one
// browser all stay bound.
func TestOIDCFlowBindingIsFresh(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	planted := hex.EncodeToString([]byte(strings.Repeat("p", 32)))
	victim := w.s.client()
	plant(t, victim, planted)
	cb := w.atProvider(victim, w.start(victim, "idp", nil), w.person(map[string]any{"email": uniqueEmail()}))
	attacker := w.s.client()
	plant(t, attacker, planted)
	wantLandingError(t, w.landing(w.callback(attacker, cb)), "USER_BAD_REQUEST_INVALID_OIDC_STATE")

	tabs := w.s.client()
	plant(t, tabs, planted)
	var flows []string
	for range 3 {
		flows = append(flows, w.start(tabs, "idp", nil))
	}
	for i, authURL := range flows {
		v := w.landing(w.callback(tabs, w.atProvider(tabs, authURL, w.person(map[string]any{"email": uniqueEmail()}))))
		if v.Get("oidc") == "" {
			t.Fatalf("tab %d: landing %v, want a result code", i, v)
		}
		w.exchange(tabs, v.Get("oidc"), nil).want(t, 201, "")
	}
}

// stripIss removes the iss parameter of a provider's redirect.
func stripIss(t *testing.T, cb string) string {
	t.Helper()
	u, err := url.Parse(cb)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("iss") == "" {
		t.Fatalf("the provider's redirect %s has no iss", cb)
	}
	q.Del("iss")
	return oidcPublic + u.Path + "?" + q.Encode()
}

// TestOIDCIssRequiredWhenAdvertised: a provider whose discovery document
// says it sends iss in its authorization responses must have sent it: a
// response without it lands with PROVIDER_ERROR. A provider that does
// not say so is taken without it.
func TestOIDCIssRequiredWhenAdvertised(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	c := w.s.client()
	cb := w.atProvider(c, w.start(c, "idp", nil), w.person(map[string]any{"email": uniqueEmail()}))
	wantLandingError(t, w.landing(w.callback(c, stripIss(t, cb))), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	if n := w.count(`SELECT count(*) FROM users`); n != 0 {
		t.Errorf("users: %d, want none", n)
	}
	u := register(t, w.s.client(), "web")
	cb = w.atProvider(u.c, linkStart(u.c, u).want(t, 200, "").str("url"), w.person(map[string]any{"email": uniqueEmail()}))
	wantLandingError(t, w.landing(w.callback(u.c, stripIss(t, cb))), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'identity_login_failed'
		AND data->>'reason' = 'no_issuer'`, u.id); n != 1 {
		t.Errorf("identity_login_failed events with reason no_issuer: %d, want 1", n)
	}

	quiet := newOIDCWorld(t, nil)
	quiet.p.Proxy.EditDiscovery(func(doc map[string]any) { delete(doc, "authorization_response_iss_parameter_supported") })
	c = quiet.s.client()
	cb = quiet.atProvider(c, quiet.start(c, "idp", nil), quiet.person(map[string]any{"email": uniqueEmail()}))
	if v := quiet.landing(quiet.callback(c, stripIss(t, cb))); v.Get("oidc") == "" {
		t.Errorf("a provider that does not send iss: landing %v, want a result code", v)
	}
}

// TestOIDCDiscoveryRefreshed: the discovery document is read again once
// it is a day old, and after a token named a key the provider's set
// lacks (at most once per 10 s); otherwise it is read once.
func TestOIDCDiscoveryRefreshed(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	// The provider's ID tokens outlive the day the clock skips.
	w := newOIDCWorldWith(t, oidctest.Options{IDTokenTTL: 72 * time.Hour}, clock.Now, []string{"api"})
	reads := func(want int, when string) {
		t.Helper()
		if n := w.p.Proxy.DiscoveryReads(); n != want {
			t.Errorf("discovery reads %s: %d, want %d", when, n, want)
		}
	}
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	clock.Advance(time.Hour)
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(1, "after two sign-ins within the day")
	clock.Advance(24 * time.Hour)
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(2, "after a day")

	clock.Advance(time.Minute)
	unknown, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	madeUp := &oidctest.Rewrite{Signer: oidctest.Signer{Key: unknown, KeyID: "made-up", Alg: jose.RS256}}
	refused := func() {
		t.Helper()
		w.p.Proxy.SetRewrite(madeUp)
		wantLandingError(t, w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": uniqueEmail()})), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
		w.p.Proxy.SetRewrite(nil)
	}
	refused()
	reads(2, "during the flow of a made-up key id")
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(3, "after a token named a key the set lacks")
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(3, "after a good sign-in since")
	refused()
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(3, "after another made-up key id within 10 s of the last read")
	clock.Advance(11 * time.Second)
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	reads(4, "11 s later")
}
