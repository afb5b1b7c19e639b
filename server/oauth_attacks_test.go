package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/models"
)

// TestOAuthErrorsNeverRedirectToUnvalidatedURIs: an error found before the
// redirect URI is validated (unknown client, unregistered redirect URI) is
// a page, never a redirect, even when the request has other errors too
// (zitadel/oidc#627); an error of an unverified (dynamic) client is a page
// as well; only an admin client's errors redirect, with state and iss.
func TestOAuthErrorsNeverRedirectToUnvalidatedURIs(t *testing.T) {
	s := startOAuthServer(t)
	admin, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	dynamic, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://dyn.example/cb"}, source: models.OAuthClientDynamic})
	b := s.browser()
	_, challenge := pkce()
	for name, params := range map[string]url.Values{
		"unknown client":         codeParams("ak_nobody", "https://evil.example/cb", challenge, "response_type", "token"),
		"unregistered uri":       codeParams(admin, "https://evil.example/cb", challenge),
		"unregistered uri+error": {"client_id": {admin}, "redirect_uri": {"https://evil.example/cb"}, "response_type": {"token"}},
		"missing uri":            {"client_id": {admin}, "response_type": {"code"}},
		"dynamic client error":   {"client_id": {dynamic}, "redirect_uri": {"https://dyn.example/cb"}, "response_type": {"token"}},
	} {
		res, body := b.get(t, s.authorizeURL(params))
		if res.StatusCode != 400 || res.Header.Get("Location") != "" || !strings.Contains(body, "<html") {
			t.Errorf("%s: %d Location %q", name, res.StatusCode, res.Header.Get("Location"))
		}
		res, body = b.get(t, s.authorizeURL(params), "Accept", "application/json")
		var e map[string]string
		if res.StatusCode != 400 || json.Unmarshal([]byte(body), &e) != nil || e["error"] == "" || res.Header.Get("Location") != "" {
			t.Errorf("%s asking for JSON: %d %s", name, res.StatusCode, body)
		}
	}
	res, _ := b.get(t, s.authorizeURL(url.Values{"client_id": {admin}, "redirect_uri": {"https://app.example/cb"},
		"response_type": {"token"}, "state": {"s1"}}))
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != 302 || !strings.HasPrefix(loc.String(), "https://app.example/cb?") ||
		loc.Query().Get("error") != "unsupported_response_type" || loc.Query().Get("state") != "s1" || loc.Query().Get("iss") != s.issuer {
		t.Fatalf("admin client's error: %d %q", res.StatusCode, loc)
	}
}

// TestOAuthRedirectURIMatchingBypasses: a redirect URI matches a
// registered one exactly (a loopback one on any port), so none of the
// known bypasses passes (CVE-2026-3872, CVE-2020-15233).
func TestOAuthRedirectURIMatchingBypasses(t *testing.T) {
	s := startOAuthServer(t)
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://good.example/cb", "http://127.0.0.1/cb"}, method: "none"})
	b := s.browser()
	_, challenge := pkce()
	for _, uri := range []string{
		"https://good.example@evil.example/cb",
		"https://evil.example@good.example/cb",
		"https://good.example/cb/..;/evil",
		"https://good.example/cb/../evil",
		"https://good.example/cb/extra",
		"https://good.example/cbx",
		"https://GOOD.example/cb",
		"https://good.example/CB",
		"https://*.example/cb",
		"https://good.example/cb?x=1",
		"https://good.example/cb#frag",
		"https://good.example:443/cb",
		"http://good.example/cb",
		"http://127.0.0.1:5000@evil.example/cb",
		"http://127.0.0.1.evil.example/cb",
		"http://localhost/cb",
		"http://127.0.0.1:5000/cb/..;/x",
		"http://127.0.0.1:5000/CB",
		"http://127.0.0.1:99999/cb",
	} {
		res, _ := b.get(t, s.authorizeURL(codeParams(clientID, uri, challenge, "response_type", "token")))
		if res.StatusCode != 400 || res.Header.Get("Location") != "" {
			t.Errorf("%s: %d Location %q", uri, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for _, uri := range []string{"https://good.example/cb", "http://127.0.0.1/cb", "http://127.0.0.1:51234/cb"} {
		if id := s.startAuthorization(t, b, codeParams(clientID, uri, challenge)); id == "" {
			t.Errorf("%s refused", uri)
		}
	}
}

// TestOAuthPKCEDowngrade: authorize refuses a request without a
// challenge or with the plain method, and the token endpoint refuses a
// code without its verifier or with another one (zitadel/oidc#741,
// kanidm#1097).
func TestOAuthPKCEDowngrade(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	for name, params := range map[string]url.Values{
		"no challenge": {"client_id": {clientID}, "redirect_uri": {"https://app.example/cb"}, "response_type": {"code"}},
		"plain":        codeParams(clientID, "https://app.example/cb", verifier, "code_challenge_method", "plain"),
		"no method":    {"client_id": {clientID}, "redirect_uri": {"https://app.example/cb"}, "response_type": {"code"}, "code_challenge": {challenge}},
	} {
		if name == "plain" {
			params.Set("code_challenge_method", "plain")
		}
		res, _ := b.get(t, s.authorizeURL(params))
		loc, _ := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != 302 || loc.Query().Get("error") != "invalid_request" {
			t.Errorf("%s: %d %q", name, res.StatusCode, loc)
		}
	}
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge))
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}})
	if st != 400 || out["error"] != "invalid_request" {
		t.Fatalf("no verifier: %d %v", st, out)
	}
	other, _ := pkce()
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}, "code_verifier": {other}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("another verifier: %d %v", st, out)
	}
	// The code was burnt by the wrong verifier: the right one is too late.
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the right verifier after a wrong one: %d %v", st, out)
	}
}

// TestOAuthCodeReplayEndsItsSession: a code presented a second time is
// invalid_grant and ends the session its first exchange opened: its
// access token is refused by userinfo and its refresh token by the token
// endpoint (CVE-2026-4282). A code presented by another client, or with
// another redirect URI, is invalid_grant.
func TestOAuthCodeReplayEndsItsSession(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	otherID, otherSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	params := codeParams(clientID, "https://app.example/cb", challenge, "scope", "openid")
	exchange := func(id, sec, code, redirect string) (int, map[string]any) {
		return s.tokenCall(t, id, sec, url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {redirect}, "code_verifier": {verifier}})
	}
	code := s.codeFor(t, b, u, params)
	st, first := exchange(clientID, secret, code, "https://app.example/cb")
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, first)
	}
	if st, _, _ := s.userinfo(t, first["access_token"].(string)); st != 200 {
		t.Fatalf("userinfo: %d", st)
	}
	st, out := exchange(clientID, secret, code, "https://app.example/cb")
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("replay: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, first["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo after the replay: %d", st)
	}
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first["refresh_token"].(string)}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("refresh after the replay: %d %v", st, out)
	}
	// The user's own session is untouched.
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")

	code = s.codeFor(t, b, u, params)
	if st, out := exchange(otherID, otherSecret, code, "https://app.example/cb"); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("another client's code: %d %v", st, out)
	}
	code = s.codeFor(t, b, u, params)
	if st, out := exchange(clientID, secret, code, "https://app.example/other"); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("another redirect_uri: %d %v", st, out)
	}
	if st, out := exchange(clientID, "wrong-secret", strings.Repeat("a", 43), "https://app.example/cb"); st != 401 || out["error"] != "invalid_client" {
		t.Fatalf("a wrong secret: %d %v", st, out)
	}
}

// TestOAuthResourceBoundToTheGrant: a resource the authorization did not
// name cannot be asked of the token endpoint, at the exchange or at a
// refresh (better-auth GHSA-p2fr-6hmx-4528), and authorize refuses one
// the server does not serve.
func TestOAuthResourceBoundToTheGrant(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	mcp := s.issuer + "/mcp"
	res, _ := b.get(t, s.authorizeURL(codeParams(clientID, "https://app.example/cb", challenge, "resource", "https://other.example/")))
	if loc, _ := url.Parse(res.Header.Get("Location")); res.StatusCode != 302 || loc.Query().Get("error") != "invalid_target" {
		t.Fatalf("an unknown resource: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge, "resource", mcp))
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"https://app.example/cb"},
		"code_verifier": {verifier}, "resource": {s.issuer}}
	if st, out := s.tokenCall(t, clientID, secret, form); st != 400 || out["error"] != "invalid_target" {
		t.Fatalf("a resource not authorized: %d %v", st, out)
	}
	code = s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge, "resource", mcp))
	form.Set("code", code)
	form.Del("resource")
	st, out := s.tokenCall(t, clientID, secret, form)
	if st != 200 || jwtPayload(out["access_token"].(string))["aud"] != mcp {
		t.Fatalf("exchange: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, out["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo with a token for the MCP resource: %d", st)
	}
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {out["refresh_token"].(string)}, "resource": {s.issuer}})
	if st != 400 || out["error"] != "invalid_target" {
		t.Fatalf("refresh for a resource not granted: %d %v", st, out)
	}
}

// TestOAuthConsentNeverSilentlySkipped: consent is required for a new
// client, not once it covers what is asked, again for a new scope, always
// with prompt=consent, and always for a public client on a loopback
// redirect URI (RFC 8252 §8.6), whatever it consented to before.
func TestOAuthConsentNeverSilentlySkipped(t *testing.T) {
	s := startOAuthServer(t)
	web, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	cli, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}, method: "none"})
	b := s.browser()
	u := loginUser(t, b)
	_, challenge := pkce()
	consent := func(params url.Values) any {
		t.Helper()
		id := s.startAuthorization(t, b, params)
		r := b.call(http.MethodPost, "/v1/users/oauth/request", map[string]any{"requestId": id}, u.auth()...)
		r.want(t, 200, "")
		return r.obj("request")["consentRequired"]
	}
	first := codeParams(web, "https://app.example/cb", challenge, "scope", "openid email")
	if consent(first) != true {
		t.Fatal("no consent asked of a new client")
	}
	s.codeFor(t, b, u, first)
	if consent(first) != false {
		t.Fatal("consent asked again for what was approved")
	}
	if consent(codeParams(web, "https://app.example/cb", challenge, "scope", "openid email profile")) != true {
		t.Fatal("no consent asked for a new scope")
	}
	if consent(codeParams(web, "https://app.example/cb", challenge, "scope", "openid email", "prompt", "consent")) != true {
		t.Fatal("no consent asked with prompt=consent")
	}
	loop := codeParams(cli, "http://127.0.0.1:4242/cb", challenge, "scope", "openid")
	s.codeFor(t, b, u, loop)
	if consent(loop) != true {
		t.Fatal("consent skipped for a public client on a loopback redirect URI")
	}
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'oauth_app_connected'`, u.id); err != nil || n != 2 {
		t.Fatalf("%d oauth_app_connected events: %v", n, err)
	}
}

// TestOAuthRequestNeedsItsBrowser: a requestId leaked to another browser
// (without the oauth-request cookie) is useless there: request, approve
// and deny all refuse it, and the request stays pending for its own
// browser.
func TestOAuthRequestNeedsItsBrowser(t *testing.T) {
	s := startOAuthServer(t)
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	_, challenge := pkce()
	id := s.startAuthorization(t, b, codeParams(clientID, "https://app.example/cb", challenge))
	thief := s.browser()
	for _, path := range []string{"/v1/users/oauth/request", "/v1/users/oauth/approve", "/v1/users/oauth/deny"} {
		thief.call(http.MethodPost, path, map[string]any{"requestId": id}, u.auth()...).
			want(t, 400, "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST")
	}
	r := b.call(http.MethodPost, "/v1/users/oauth/deny", map[string]any{"requestId": id, "error": "access_denied"})
	r.want(t, 200, "")
	to, _ := url.Parse(r.str("redirectTo"))
	if to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "st-1" || to.Query().Get("iss") != s.issuer {
		t.Fatalf("deny redirects to %q", to)
	}
	b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": id}, u.auth()...).
		want(t, 400, "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST")
}

// TestOAuthApproveHonoursReauthentication: prompt=login and max_age=0
// need an authentication after the request was made, and a client's
// minimum assurance level needs aal 2: otherwise approve is 403
// USER_FORBIDDEN_REAUTHENTICATION_REQUIRED with the §12 body; a fresh
// login then approves.
func TestOAuthApproveHonoursReauthentication(t *testing.T) {
	s := startOAuthServer(t)
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	strict, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, minAAL: 2})
	b := s.browser()
	u := loginUser(t, b)
	_, challenge := pkce()
	for _, extra := range [][]string{{"prompt", "login"}, {"max_age", "0"}} {
		id := s.startAuthorization(t, b, codeParams(clientID, "https://app.example/cb", challenge, extra...))
		r := b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": id}, u.auth()...)
		r.want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
		if _, ok := r.Body["methods"]; !ok {
			t.Fatalf("%v: no methods in %s", extra, r.Raw)
		}
		fresh := b.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword})
		fresh.want(t, 201, "")
		r = b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": id},
			"Authorization", "jwt-user "+fresh.str("token"))
		r.want(t, 200, "")
	}
	id := s.startAuthorization(t, b, codeParams(clientID, "https://app.example/cb", challenge, "max_age", "3600"))
	approve(t, b, u, id)
	id = s.startAuthorization(t, b, codeParams(strict, "https://app.example/cb", challenge))
	b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": id}, u.auth()...).
		want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
}

// TestOAuthRefreshReplayEndsOnlyThatSession: a rotated refresh token
// presented again by its client within 10 s is invalid_grant and nothing
// more; later it is a replay that ends that OAuth session only (event
// refresh_theft with data.clientId), leaving the user's own session and
// token version alone. Another client presenting the token changes
// nothing.
func TestOAuthRefreshReplayEndsOnlyThatSession(t *testing.T) {
	clock := newTestClock()
	s := startOAuthServerClock(t, clock.Now)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	otherID, otherSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge, "scope", "openid"))
	st, first := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, first)
	}
	refresh := func(id, sec, token string) (int, map[string]any) {
		return s.tokenCall(t, id, sec, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}})
	}
	if st, out := refresh(otherID, otherSecret, first["refresh_token"].(string)); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("another client's refresh token: %d %v", st, out)
	}
	st, second := refresh(clientID, secret, first["refresh_token"].(string))
	if st != 200 {
		t.Fatalf("refresh: %d %v", st, second)
	}
	versionBefore := tokenVersionOf(t, s.db, u.id)
	clock.Advance(5 * time.Second)
	if st, out := refresh(clientID, secret, first["refresh_token"].(string)); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("within the grace: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, second["access_token"].(string)); st != 200 {
		t.Fatalf("userinfo after the grace refusal: %d", st)
	}
	clock.Advance(6 * time.Second)
	if st, out := refresh(clientID, secret, first["refresh_token"].(string)); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("replay: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, second["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo after the replay: %d", st)
	}
	if st, out := refresh(clientID, secret, second["refresh_token"].(string)); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the live token after the replay: %d %v", st, out)
	}
	b.call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 200, "")
	if v := tokenVersionOf(t, s.db, u.id); v != versionBefore {
		t.Fatalf("token version %d, was %d", v, versionBefore)
	}
	var data string
	if err := s.db.Get(&data, `SELECT data::text FROM security_events WHERE owner_id = $1 AND type = 'refresh_theft'`, u.id); err != nil ||
		!strings.Contains(data, clientID) {
		t.Fatalf("refresh_theft event %q: %v", data, err)
	}
}

// TestOAuthClientCredentials: a confidential client with the grant gets a
// token whose subject is itself, without refresh or ID token, refused by
// userinfo (no session); a client without the grant is
// unauthorized_client, and a scope beyond the client's is invalid_scope.
func TestOAuthClientCredentials(t *testing.T) {
	s := startOAuthServer(t)
	scope := "openid email"
	machine, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://m.example/cb"},
		grants: []string{"client_credentials"}, method: "client_secret_post", scope: &scope})
	web, webSecret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	form := func(extra ...string) url.Values {
		v := url.Values{"grant_type": {"client_credentials"}, "client_id": {machine}, "client_secret": {secret}}
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		return v
	}
	st, out := s.tokenCall(t, machine, "", form("scope", "email"))
	if st != 200 || out["refresh_token"] != nil || out["id_token"] != nil || out["scope"] != "email" {
		t.Fatalf("client_credentials: %d %v", st, out)
	}
	claims := jwtPayload(out["access_token"].(string))
	if claims["sub"] != machine || claims["sid"] != nil || claims["aud"] != s.issuer {
		t.Fatalf("claims %v", claims)
	}
	if st, _, _ := s.userinfo(t, out["access_token"].(string)); st != 401 {
		t.Fatalf("userinfo with a client's own token: %d", st)
	}
	if st, out := s.tokenCall(t, machine, "", form("scope", "profile")); st != 400 || out["error"] != "invalid_scope" {
		t.Fatalf("a scope beyond the client's: %d %v", st, out)
	}
	if st, out := s.tokenCall(t, machine, "", form("client_secret", "wrong")); st != 401 || out["error"] != "invalid_client" {
		t.Fatalf("a wrong secret: %d %v", st, out)
	}
	if st, out := s.tokenCall(t, web, webSecret, url.Values{"grant_type": {"client_credentials"}}); st != 400 || out["error"] != "unauthorized_client" {
		t.Fatalf("a client without the grant: %d %v", st, out)
	}
	if st, out := s.tokenCall(t, web, webSecret, url.Values{"grant_type": {"password"}}); st != 400 || out["error"] != "unsupported_grant_type" {
		t.Fatalf("an unknown grant: %d %v", st, out)
	}
	_, challenge := pkce()
	res, _ := s.browser().get(t, s.authorizeURL(codeParams(machine, "https://m.example/cb", challenge)))
	if loc, _ := url.Parse(res.Header.Get("Location")); res.StatusCode != 302 || loc.Query().Get("error") != "unauthorized_client" {
		t.Fatalf("a machine client at authorize: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestOAuthTokenEndpointRateClass: failed client authentications count in
// the client address's oauth class (AUTH_RATE_LIMIT_MAX); past it the
// token endpoint answers 429 temporarily_unavailable before evaluating
// anything, the right secret included.
func TestOAuthTokenEndpointRateClass(t *testing.T) {
	s := startOAuthServer(t, "AUTH_RATE_LIMIT_MAX=3", "AUTH_RATE_LIMIT_WINDOW=1m")
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	for i := range 3 {
		if st, out := s.tokenCall(t, clientID, "wrong", url.Values{"grant_type": {"client_credentials"}}); st != 401 {
			t.Fatalf("failure %d: %d %v", i+1, st, out)
		}
	}
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"client_credentials"}})
	if st != 429 || out["error"] != "temporarily_unavailable" || out["error_description"] != "too many requests; retry later" {
		t.Fatalf("after 3 failures: %d %v", st, out)
	}
}

// TestOAuthFirstConnectionMailed: the first approval of a client mails
// the user a notice naming the application.
func TestOAuthFirstConnectionMailed(t *testing.T) {
	smtp := smtptest.Start(t)
	s := startOAuthServerRoles(t, nil, nil, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s")
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	_, challenge := pkce()
	s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge))
	// The address's verification mail, then the notice.
	var notice *smtptest.Message
	for _, m := range smtp.WaitFor(t, u.email, 2, 20*time.Second) {
		if m.Subject == "Application connected" {
			notice = &m
		}
	}
	if notice == nil || !strings.Contains(notice.Text, "App "+clientID[3:9]) {
		t.Fatalf("no notice naming the application: %+v", notice)
	}
}

// TestOAuthBadInputIsNeverA500: values no client or request can have (a
// NUL, invalid UTF-8, an oversized id) are protocol errors, never server
// errors.
func TestOAuthBadInputIsNeverA500(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	_, challenge := pkce()
	for _, id := range []string{"ak_\x00x", "ak_\xff", strings.Repeat("a", 3000)} {
		if res, _ := b.get(t, s.authorizeURL(codeParams(id, "https://app.example/cb", challenge))); res.StatusCode != 400 {
			t.Errorf("authorize with client_id %q: %d", id[:4], res.StatusCode)
		}
		if st, out := s.tokenCall(t, id, "", url.Values{"grant_type": {"client_credentials"}}); st != 401 || out["error"] != "invalid_client" {
			t.Errorf("token with client_id %q: %d %v", id[:4], st, out)
		}
	}
	for name, form := range map[string]url.Values{
		"nul code":     {"grant_type": {"authorization_code"}, "code": {"a\x00"}, "redirect_uri": {"x"}, "code_verifier": {strings.Repeat("v", 43)}},
		"nul refresh":  {"grant_type": {"refresh_token"}, "refresh_token": {"a\x00b"}},
		"nul scope":    {"grant_type": {"refresh_token"}, "refresh_token": {strings.Repeat("ab", 32)}, "scope": {"\x00"}},
		"nul resource": {"grant_type": {"refresh_token"}, "refresh_token": {strings.Repeat("ab", 32)}, "resource": {"https://a\x00"}},
	} {
		if st, out := s.tokenCall(t, clientID, secret, form); st != 400 {
			t.Errorf("%s: %d %v", name, st, out)
		}
	}
	for _, state := range []string{"a\x00", strings.Repeat("s", 2000)} {
		params := codeParams(clientID, "https://app.example/cb", challenge)
		params.Set("state", state)
		res, _ := b.get(t, s.authorizeURL(params))
		if res.StatusCode != 302 || !strings.Contains(res.Header.Get("Location"), "error=invalid_request") {
			t.Errorf("state %q...: %d %q", state[:1], res.StatusCode, res.Header.Get("Location"))
		}
	}
}

// TestOAuthRefreshSpendsTheSessionBudget: OAuth refreshes spend the
// session chain's refresh budget (§17) as first-party ones do; past it
// the token endpoint answers 429 and the token stays good.
func TestOAuthRefreshSpendsTheSessionBudget(t *testing.T) {
	s := startOAuthServer(t, "AUTH_RATE_LIMIT_MAX=2", "AUTH_RATE_LIMIT_WINDOW=1m")
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	tok := s.signIn(t, b, u, clientID, secret)
	refresh := tok["refresh_token"].(string)
	for i := range 2 {
		st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
		if st != 200 {
			t.Fatalf("refresh %d: %d %v", i+1, st, out)
		}
		refresh = out["refresh_token"].(string)
	}
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	if st != 429 || out["error"] != "temporarily_unavailable" {
		t.Fatalf("past the budget: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, tok["access_token"].(string)); st != 200 {
		t.Fatalf("the session after a refused refresh: %d", st)
	}
}

// TestOAuthParallelRefreshesEndNothing: two refreshes of one token at
// once (an agent's parallel calls) rotate it once; the other is
// invalid_grant within the grace, and the session lives on.
func TestOAuthParallelRefreshesEndNothing(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	tok := s.signIn(t, b, u, clientID, secret)
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}}.Encode()
	type answer struct {
		status int
		body   map[string]any
		err    error
	}
	answers := make(chan answer, 2)
	start := make(chan struct{})
	for range 2 {
		go func() {
			<-start
			req, _ := http.NewRequest(http.MethodPost, s.issuer+"/oauth2/token", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer res.Body.Close()
			var body map[string]any
			_ = json.NewDecoder(res.Body).Decode(&body)
			answers <- answer{status: res.StatusCode, body: body}
		}()
	}
	close(start)
	var rotated string
	refused := 0
	for range 2 {
		a := <-answers
		switch {
		case a.err != nil:
			t.Fatal(a.err)
		case a.status == 200:
			rotated = a.body["access_token"].(string)
		case a.status == 400 && a.body["error"] == "invalid_grant":
			refused++
		default:
			t.Fatalf("refresh: %d %v", a.status, a.body)
		}
	}
	if rotated == "" || refused != 1 {
		t.Fatalf("rotated %v, refused %d", rotated != "", refused)
	}
	if st, _, _ := s.userinfo(t, rotated); st != 200 {
		t.Fatalf("the session after parallel refreshes: %d", st)
	}
}
