package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// relyingParty is a Go relying party with a loopback callback that hands
// the query it receives to the test.
type relyingParty struct {
	callback string
	queries  chan url.Values
}

func newRelyingParty(t *testing.T) *relyingParty {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rp := &relyingParty{callback: fmt.Sprintf("http://127.0.0.1:%d/cb", ln.Addr().(*net.TCPAddr).Port),
		queries: make(chan url.Values, 4)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.queries <- r.URL.Query()
		_, _ = w.Write([]byte("signed in"))
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return rp
}

// TestOAuthCodeFlowWithGoRelyingParty: a Go relying party (go-oidc and
// x/oauth2) signs a user in with code and PKCE: the ID token verifies
// (nonce, at_hash), userinfo answers, refresh rotates and narrows but
// never widens, the OAuth session shows in the user's session list, its
// refresh token is refused by /v1/users/refresh and its access token by
// the first-party API, and logout everywhere ends it at once.
func TestOAuthCodeFlowWithGoRelyingParty(t *testing.T) {
	s := startOAuthServer(t)
	rp := newRelyingParty(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"http://127.0.0.1/cb"}})
	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, s.issuer)
	if err != nil {
		t.Fatal(err)
	}
	cfg := oauth2.Config{ClientID: clientID, ClientSecret: secret, Endpoint: provider.Endpoint(),
		RedirectURL: rp.callback, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
	cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	verifier := oauth2.GenerateVerifier()

	b := s.browser()
	u := loginUser(t, b)
	authURL := cfg.AuthCodeURL("state-42", oauth2.S256ChallengeOption(verifier), oidc.Nonce("nonce-7"))
	res, body := b.get(t, authURL)
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.StatusCode, body)
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), "oauth-request=") {
		t.Fatalf("authorize sets no oauth-request cookie: %v", res.Header)
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	requestID := loc.Query().Get("oauth_request")
	r := b.call(http.MethodPost, "/v1/users/oauth/request", map[string]any{"requestId": requestID}, u.auth()...)
	r.want(t, 200, "")
	req := r.obj("request")
	if req["consentRequired"] != true || req["redirectUri"] != rp.callback || req["client"].(map[string]any)["verified"] != true {
		t.Fatalf("request %v", req)
	}
	r = b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": requestID}, u.auth()...)
	r.want(t, 200, "")
	// The browser follows redirectTo to the relying party's callback.
	if _, err := b.http.Get(r.str("redirectTo")); err != nil {
		t.Fatal(err)
	}
	var q url.Values
	select {
	case q = <-rp.queries:
	case <-time.After(10 * time.Second):
		t.Fatal("the callback was not reached")
	}
	if q.Get("state") != "state-42" || q.Get("iss") != s.issuer {
		t.Fatalf("callback query %v", q)
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	rawID, _ := tok.Extra("id_token").(string)
	idTok, err := provider.Verifier(&oidc.Config{ClientID: clientID}).Verify(ctx, rawID)
	if err != nil {
		t.Fatal(err)
	}
	if idTok.Nonce != "nonce-7" || idTok.Subject != u.id {
		t.Fatalf("id token nonce %q sub %q", idTok.Nonce, idTok.Subject)
	}
	if err := idTok.VerifyAccessToken(tok.AccessToken); err != nil {
		t.Fatalf("at_hash: %v", err)
	}
	var claims struct {
		Email string   `json:"email"`
		Sid   string   `json:"sid"`
		Amr   []string `json:"amr"`
	}
	if err := idTok.Claims(&claims); err != nil || claims.Email != u.email || claims.Sid == "" || !slices.Equal(claims.Amr, []string{"pwd"}) {
		t.Fatalf("id token claims %+v: %v", claims, err)
	}
	at := jwtPayload(tok.AccessToken)
	if at["aud"] != s.issuer || at["client_id"] != clientID || at["sid"] != claims.Sid || at["scope"] != "openid email profile" {
		t.Fatalf("access token claims %v", at)
	}
	info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil || info.Email != u.email || info.Subject != u.id {
		t.Fatalf("userinfo %+v: %v", info, err)
	}

	// The OAuth session is a session of the user.
	r = b.call(http.MethodGet, "/v1/users/sessions", nil, u.auth()...)
	r.want(t, 200, "")
	var found map[string]any
	for _, x := range r.Body["sessions"].([]any) {
		if sess := x.(map[string]any); sess["client"] == "oauth" {
			found = sess
		} else if sess["oauthClientId"] != nil {
			t.Fatalf("a first-party session names a client: %v", sess)
		}
	}
	if found == nil || found["id"] != claims.Sid || found["oauthClientId"] != clientID || !strings.HasPrefix(found["oauthClientName"].(string), "App ") {
		t.Fatalf("sessions %v", r.Body["sessions"])
	}

	// Its tokens never pass for first-party ones.
	b.call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+tok.AccessToken).want(t, 401, "UNAUTHORIZED")
	app := s.client()
	app.base = s.issuer
	unknown := app.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": strings.Repeat("ab", 32)}, "X-Client", "app")
	oauthRefresh := app.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": tok.RefreshToken}, "X-Client", "app")
	if oauthRefresh.Status != unknown.Status || oauthRefresh.Body["error"] != unknown.Body["error"] || unknown.Status != 401 {
		t.Fatalf("first-party refresh of an OAuth token: %d %s; of an unknown one: %d %s", oauthRefresh.Status, oauthRefresh.Raw, unknown.Status, unknown.Raw)
	}
	// A first-party access token is refused by userinfo.
	if st, _, h := s.userinfo(t, u.token); st != 401 || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("userinfo with a first-party token: %d %v", st, h)
	}

	// Refresh: widening refused (the token stays good), narrowing allowed,
	// rotation; a rotated token presented at once again is refused and
	// nothing more.
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
		"scope": {"openid email profile offline_access"}})
	if st != 400 || out["error"] != "invalid_scope" {
		t.Fatalf("widening refresh: %d %v", st, out)
	}
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
		"scope": {"openid email"}})
	if st != 200 || out["scope"] != "openid email" || out["refresh_token"] == tok.RefreshToken || out["id_token"] == nil {
		t.Fatalf("narrowing refresh: %d %v", st, out)
	}
	refreshed := out["id_token"].(string)
	rid, err := provider.Verifier(&oidc.Config{ClientID: clientID}).Verify(ctx, refreshed)
	if err != nil || rid.Nonce != "" || !rid.IssuedAt.After(time.Time{}) {
		t.Fatalf("refreshed id token: %v", err)
	}
	if jwtPayload(refreshed)["auth_time"] != jwtPayload(rawID)["auth_time"] {
		t.Fatalf("refreshed auth_time %v, first %v", jwtPayload(refreshed)["auth_time"], jwtPayload(rawID)["auth_time"])
	}
	newAccess, newRefresh := out["access_token"].(string), out["refresh_token"].(string)
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("rotated token again: %d %v", st, out)
	}
	if st, body, _ := s.userinfo(t, newAccess); st != 200 || body["email"] != u.email || body["name"] != nil {
		t.Fatalf("userinfo after the grace refusal: %d %v", st, body)
	}
	// A first-party refresh token is refused by the token endpoint.
	web := register(t, s.client(), "app")
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {web.refresh}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("first-party refresh token at /oauth2/token: %d %v", st, out)
	}

	// Logout everywhere ends the OAuth session at once.
	b.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	if st, _, h := s.userinfo(t, newAccess); st != 401 || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("userinfo after logoutall: %d %v", st, h)
	}
	st, out = s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {newRefresh}})
	if st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("refresh after logoutall: %d %v", st, out)
	}
}

// TestOAuthSessionEndsWithPasswordChange: a password change ends the
// OAuth sessions of the user at once (its access token is refused by
// userinfo).
func TestOAuthSessionEndsWithPasswordChange(t *testing.T) {
	s := startOAuthServer(t)
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge, "scope", "openid"))
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, out)
	}
	access := out["access_token"].(string)
	if st, _, _ := s.userinfo(t, access); st != 200 {
		t.Fatalf("userinfo: %d", st)
	}
	b.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword,
		"newPassword": "Another-Horse-43-staple"}, u.auth()...).want(t, 200, "")
	if st, _, _ := s.userinfo(t, access); st != 401 {
		t.Fatalf("userinfo after a password change: %d", st)
	}
}

// TestOAuthDiscovery: both discovery documents answer the same JSON with
// every member of §19 (registration_endpoint only with dynamic
// registration), readable from any origin without credentials, a
// preflight of the token endpoint is answered for any origin, and with
// the provider off they are 404.
func TestOAuthDiscovery(t *testing.T) {
	s := startOAuthServer(t)
	get := func(base, path string, headers ...string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res, out
	}
	res, oidcDoc := get(s.issuer, "/.well-known/openid-configuration", "Origin", "https://elsewhere.example")
	_, asDoc := get(s.issuer, "/.well-known/oauth-authorization-server")
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("discovery: %d %v", res.StatusCode, res.Header)
	}
	a, _ := json.Marshal(oidcDoc)
	bb, _ := json.Marshal(asDoc)
	if string(a) != string(bb) {
		t.Fatalf("the two documents differ:\n%s\n%s", a, bb)
	}
	for k, want := range map[string]any{
		"issuer": s.issuer, "authorization_endpoint": s.issuer + "/oauth2/authorize", "token_endpoint": s.issuer + "/oauth2/token",
		"userinfo_endpoint": s.issuer + "/oauth2/userinfo", "jwks_uri": s.issuer + "/.well-known/jwks.json",
		"revocation_endpoint": s.issuer + "/oauth2/revoke", "introspection_endpoint": s.issuer + "/oauth2/introspect",
		"end_session_endpoint": s.issuer + "/oauth2/logout", "authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported": true,
	} {
		if oidcDoc[k] != want {
			t.Errorf("%s: %v, want %v", k, oidcDoc[k], want)
		}
	}
	for k, want := range map[string]string{
		"response_types_supported": "code", "response_modes_supported": "query",
		"grant_types_supported":                 "authorization_code refresh_token client_credentials",
		"code_challenge_methods_supported":      "S256",
		"token_endpoint_auth_methods_supported": "none client_secret_basic client_secret_post",
		"subject_types_supported":               "public", "id_token_signing_alg_values_supported": "RS256 EdDSA",
		"scopes_supported": "openid profile email offline_access account:read posts:write",
	} {
		var got []string
		for _, v := range oidcDoc[k].([]any) {
			got = append(got, v.(string))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %s", k, got, want)
		}
	}
	if _, ok := oidcDoc["registration_endpoint"]; ok {
		t.Error("registration_endpoint without dynamic registration")
	}
	if _, ok := oidcDoc["claims_supported"]; !ok {
		t.Error("no claims_supported")
	}
	req, _ := http.NewRequest(http.MethodOptions, s.issuer+"/oauth2/token", nil)
	req.Header.Set("Origin", "https://elsewhere.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	pre, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pre.Body.Close()
	if pre.StatusCode != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "*" || pre.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("preflight of the token endpoint: %d %v", pre.StatusCode, pre.Header)
	}

	dyn := startOAuthServer(t, "OAUTH_DYNAMIC_REGISTRATION=true")
	if _, doc := get(dyn.issuer, "/.well-known/openid-configuration"); doc["registration_endpoint"] != dyn.issuer+"/oauth2/register" {
		t.Errorf("registration_endpoint with dynamic registration: %v", doc["registration_endpoint"])
	}
	off := startServer(t, testEnv(t), "api")
	for _, p := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/oauth2/authorize"} {
		if res, _ := get(off.URL, p); res.StatusCode != 404 {
			t.Errorf("%s with the provider off: %d", p, res.StatusCode)
		}
	}
}
