package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/actionkit/actionkit/internal/oidctest"
)

// TestOIDCStateChecks: a state is good for one callback, in the browser
// that started its flow; a state that names no flow gets no redirect.
func TestOIDCStateChecks(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	sub := w.person(map[string]any{"email": uniqueEmail()})
	c := w.s.client()
	cb := w.atProvider(c, w.start(c, "idp", nil), sub)
	other := w.s.client() // another browser: no oidc-flow cookie
	wantLandingError(t, w.landing(w.callback(other, cb)), "USER_BAD_REQUEST_INVALID_OIDC_STATE")
	if v := w.landing(w.callback(c, cb)); v.Get("oidc") == "" {
		t.Fatalf("the browser that started it: %v, want a result code", v)
	}
	wantLandingError(t, w.landing(w.callback(c, cb)), "USER_BAD_REQUEST_INVALID_OIDC_STATE") // replay
	u, _ := url.Parse(cb)
	q := u.Query()
	for _, state := range []string{hex.EncodeToString(make([]byte, 32)), "not-a-state", ""} {
		q.Set("state", state)
		r := w.callback(c, oidcPublic+u.Path+"?"+q.Encode()).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_STATE")
		if r.Header.Get("Location") != "" {
			t.Errorf("state %q: redirected to %q", state, r.Header.Get("Location"))
		}
	}
	if n := w.count(`SELECT count(*) FROM users`); n != 1 {
		t.Errorf("users: %d, want the one of the good callback", n)
	}
}

// TestOIDCCodeStaysInItsBrowser: a result code exchanged by another
// browser than the one that ran the flow (an attacker's code slipped into
// a victim's page, to sign the victim into the attacker's account) is
// refused and spent: no session for the victim, and none for anyone
// after.
func TestOIDCCodeStaysInItsBrowser(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	attacker := w.s.client()
	code := w.signIn(attacker, "idp", w.person(map[string]any{"email": uniqueEmail()})).Get("oidc")
	if code == "" {
		t.Fatal("no result code")
	}
	victim := w.s.client()
	r := w.exchange(victim, code, nil).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	if len(r.Cookies) != 0 || r.str("token") != "" {
		t.Errorf("another browser's exchange: cookies %v, token %q", r.Cookies, r.str("token"))
	}
	w.exchange(attacker, code, nil).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE") // spent
	if n := w.count(`SELECT count(*) FROM user_sessions`); n != 0 {
		t.Errorf("sessions: %d, want none", n)
	}
}

// TestOIDCOpenRedirect: a flow returns only to an allowed origin, checked
// at start and again at callback.
func TestOIDCOpenRedirect(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil, "CORS_ORIGINS=https://partner.test")
	c := w.s.client()
	for _, to := range []string{"https://evil.test/", "https://app.test.evil.test/", "//evil.test/", "/demo", "javascript:alert(1)",
		"https://app.test/demo#x", "https://user@app.test/", "http://app.test/demo"} {
		r := c.call(http.MethodPost, "/v1/users/oidc/start", map[string]any{"provider": "idp", "redirectTo": to}).
			want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if _, ok := r.obj("fields")["redirectTo"]; !ok {
			t.Errorf("redirectTo %q: fields %v", to, r.Body["fields"])
		}
	}
	w.start(c, "idp", map[string]any{"redirectTo": "https://partner.test/back"})
	c.call(http.MethodPost, "/v1/users/oidc/start", map[string]any{"provider": "nope", "redirectTo": oidcLanding}).
		want(t, 400, "USER_BAD_REQUEST_UNKNOWN_OIDC_PROVIDER")
	sub := w.person(map[string]any{"email": uniqueEmail()})
	cb := w.atProvider(c, w.start(c, "idp", nil), sub)
	sqlExec(t, w.s.db(), `UPDATE oidc_flows SET redirect_to = 'https://evil.test/'`)
	r := w.callback(c, cb).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if loc := r.Header.Get("Location"); loc != "" {
		t.Errorf("callback of a flow whose target is not allowed: redirected to %q", loc)
	}
}

// s256 is the PKCE S256 challenge of verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestOIDCAppFlow: an app starts with its own PKCE challenge (required),
// its result needs the verifier (a wrong one spends it) and the app's
// client type, and answers the refresh token in the body.
func TestOIDCAppFlow(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil, "OIDC_REDIRECT_ORIGINS=https://app.test,com.example.app:")
	const appLanding = "com.example.app:/oauth"
	app := w.s.client()
	r := app.call(http.MethodPost, "/v1/users/oidc/start", map[string]any{"provider": "idp", "redirectTo": appLanding}, "X-Client", "app").
		want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := r.obj("fields")["codeChallenge"]; !ok {
		t.Errorf("fields: %v", r.Body["fields"])
	}
	sub := w.person(map[string]any{"email": uniqueEmail()})
	verifier := "app-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
	code := func() string {
		browser := w.s.client() // the system browser the app opens: it has no cookie of the app
		authURL := w.start(app, "idp", map[string]any{"codeChallenge": s256(verifier), "redirectTo": appLanding}, "X-Client", "app")
		return w.landingAt(w.callback(browser, w.atProvider(browser, authURL, sub)), appLanding).Get("oidc")
	}
	first := code()
	w.exchange(app, first, map[string]any{"codeVerifier": verifier + "x"}, "X-Client", "app").want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	w.exchange(app, first, map[string]any{"codeVerifier": verifier}, "X-Client", "app").want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	second := code()
	w.exchange(app, second, map[string]any{"codeVerifier": verifier}).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE") // as web
	third := code()
	ok := w.exchange(app, third, map[string]any{"codeVerifier": verifier}, "X-Client", "app").want(t, 201, "")
	if ok.str("refreshToken") == "" {
		t.Errorf("app login without a refresh token: %s", ok.Raw)
	}
}

// TestOIDCProviderDown: with the provider unreachable start answers 503
// and tries again at the next request; a callback whose code cannot be
// redeemed, or that carries the provider's error, lands with
// PROVIDER_ERROR and logs nobody in.
func TestOIDCProviderDown(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	c := w.s.client()
	w.p.Proxy.Down()
	r := c.call(http.MethodPost, "/v1/users/oidc/start", map[string]any{"provider": "idp", "redirectTo": oidcLanding}).
		want(t, 503, "SERVICE_UNAVAILABLE")
	if r.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	w.p.Proxy.Up()
	sub := w.person(map[string]any{"email": uniqueEmail()})
	cb := w.atProvider(c, w.start(c, "idp", nil), sub)
	w.p.Proxy.Down()
	wantLandingError(t, w.landing(w.callback(c, cb)), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	w.p.Proxy.Up()
	c = w.s.client() // a browser without a session at the provider
	aborted, err := w.p.SignIn(c.http, w.start(c, "idp", nil), sub, true)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse(aborted); u.Query().Get("error") == "" {
		t.Fatalf("the provider's abort: %s, want an error", aborted)
	}
	wantLandingError(t, w.landing(w.callback(c, aborted)), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	if n := w.count(`SELECT count(*) FROM users`); n != 0 {
		t.Errorf("users: %d, want none", n)
	}
}

// TestOIDCBadIDTokens: an ID token signed by another key, for another
// audience, with another nonce, expired, or from another issuer lands
// with PROVIDER_ERROR and creates nothing; the same token re-signed
// unchanged with the provider's key is accepted, so the refusals are the
// checks' doing.
func TestOIDCBadIDTokens(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	own := w.p.Own()
	for _, tc := range []struct {
		name    string
		rewrite oidctest.Rewrite
	}{
		{"another key under the provider's key id", oidctest.Rewrite{Signer: oidctest.Signer{Key: other, KeyID: own.KeyID, Alg: jose.RS256}}},
		{"another audience", oidctest.Rewrite{Signer: own, Claims: func(c map[string]any) { c["aud"] = "someone-else" }}},
		{"another nonce", oidctest.Rewrite{Signer: own, Claims: func(c map[string]any) { c["nonce"] = "replayed-nonce" }}},
		{"no nonce", oidctest.Rewrite{Signer: own, Claims: func(c map[string]any) { delete(c, "nonce") }}},
		{"expired", oidctest.Rewrite{Signer: own, Claims: func(c map[string]any) {
			c["exp"], c["iat"] = time.Now().Add(-time.Hour).Unix(), time.Now().Add(-2*time.Hour).Unix()
		}}},
		{"another issuer", oidctest.Rewrite{Signer: own, Claims: func(c map[string]any) { c["iss"] = w.p.Issuer + "/" }}},
	} {
		w.p.Proxy.SetRewrite(&tc.rewrite)
		v := w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": uniqueEmail()}))
		if v.Get("error") != "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR" {
			t.Errorf("%s: landing %v, want PROVIDER_ERROR", tc.name, v)
		}
	}
	if n := w.count(`SELECT count(*) FROM users`); n != 0 {
		t.Errorf("users: %d, want none", n)
	}
	w.p.Proxy.SetRewrite(&oidctest.Rewrite{Signer: own})
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	c := w.s.client()
	cb, _ := url.Parse(w.atProvider(c, w.start(c, "idp", nil), w.person(map[string]any{"email": uniqueEmail()})))
	q := cb.Query()
	q.Set("iss", "https://other-issuer.test")
	wantLandingError(t, w.landing(w.callback(c, oidcPublic+cb.Path+"?"+q.Encode())), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
}

// TestOIDCKeyRotation: a token signed by a key the cached set lacks reads
// the provider's keys again at once, but not again within 10 s.
func TestOIDCKeyRotation(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	w := newOIDCWorld(t, clock.Now)
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	if n := w.p.Proxy.KeyReads(); n != 1 {
		t.Fatalf("key reads after the first sign-in: %d, want 1", n)
	}
	newKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(11 * time.Second)
	w.p.Proxy.Publish(jose.JSONWebKey{Key: &newKey.PublicKey, KeyID: "rotated", Algorithm: "RS256", Use: "sig"})
	w.p.Proxy.SetRewrite(&oidctest.Rewrite{Signer: oidctest.Signer{Key: newKey, KeyID: "rotated", Alg: jose.RS256}})
	w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	if n := w.p.Proxy.KeyReads(); n != 2 {
		t.Fatalf("key reads after a token of a new key: %d, want 2", n)
	}
	unknown, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	w.p.Proxy.SetRewrite(&oidctest.Rewrite{Signer: oidctest.Signer{Key: unknown, KeyID: "made-up", Alg: jose.RS256}})
	for range 2 {
		wantLandingError(t, w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": uniqueEmail()})), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	}
	if n := w.p.Proxy.KeyReads(); n != 2 {
		t.Errorf("key reads after made-up key ids within 10 s: %d, want still 2", n)
	}
	clock.Advance(11 * time.Second)
	wantLandingError(t, w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": uniqueEmail()})), "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")
	if n := w.p.Proxy.KeyReads(); n != 3 {
		t.Errorf("key reads 11 s later: %d, want 3", n)
	}
}
