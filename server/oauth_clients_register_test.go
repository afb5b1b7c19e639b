package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/testclock"
)

// registerClient posts a registration with c and extra headers.
func registerClient(c *client, body any, headers ...string) *apiResponse {
	return c.call(http.MethodPost, "/oauth2/register", body, headers...)
}

// wantOAuthError fails unless r is status with the RFC 6749 error object
// of code, and nothing else.
func wantOAuthError(t testing.TB, r *apiResponse, status int, code string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != code || r.str("error_description") == "" || len(r.Body) != 2 {
		t.Fatalf("got %d %s, want %d {error: %s, error_description}", r.Status, r.Raw, status, code)
	}
}

// TestDynamicRegistration: POST /oauth2/register answers 201 with the
// client's id, its secret only for a confidential client, and the
// registered metadata, absent members omitted (never null) and unknown
// ones ignored; invalid values are invalid_redirect_uri or
// invalid_client_metadata; it answers CORS from any origin without
// credentials, even an origin of CORS_ORIGINS.
func TestDynamicRegistration(t *testing.T) {
	t.Parallel()
	s := startServer(t, oauthEnv(t, "OAUTH_DYNAMIC_REGISTRATION=true", "CORS_ORIGINS=https://app.test"), "api")
	db := s.db()
	c := s.client()

	r := registerClient(c, map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "client_name": "CLI",
		"software_id": "x", "jwks": map[string]any{"keys": []any{}}})
	if r.Status != 201 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("confidential: %d %s (Cache-Control %q)", r.Status, r.Raw, r.Header.Get("Cache-Control"))
	}
	id, secret := r.str("client_id"), r.str("client_secret")
	if !clientIDPattern.MatchString(id) || !clientSecretPattern.MatchString(secret) || r.Body["client_secret_expires_at"] != 0.0 {
		t.Fatalf("confidential: %s", r.Raw)
	}
	if issued, ok := r.Body["client_id_issued_at"].(float64); !ok || time.Since(time.Unix(int64(issued), 0)).Abs() > time.Minute {
		t.Fatalf("client_id_issued_at %v", r.Body["client_id_issued_at"])
	}
	want := map[string]any{"client_name": "CLI", "token_endpoint_auth_method": "client_secret_basic", "id_token_signed_response_alg": "RS256"}
	for k, v := range want {
		if r.Body[k] != v {
			t.Errorf("%s = %v, want %v", k, r.Body[k], v)
		}
	}
	if fmt.Sprint(r.Body["grant_types"]) != "[authorization_code refresh_token]" || fmt.Sprint(r.Body["redirect_uris"]) != "[https://app.example/cb]" {
		t.Errorf("metadata %s", r.Raw)
	}
	for k, v := range r.Body {
		if v == nil {
			t.Errorf("%s is null: absent members are omitted", k)
		}
	}
	for _, k := range []string{"scope", "logo_uri", "client_uri", "post_logout_redirect_uris", "software_id", "jwks"} {
		if _, ok := r.Body[k]; ok {
			t.Errorf("%s answered though not registered: %s", k, r.Raw)
		}
	}
	if got := secretHashOf(t, db, id); got != sha256Hex(secret) {
		t.Fatalf("secret_hash %q, want the secret's SHA-256", got)
	}
	var source string
	_ = db.GetContext(t.Context(), &source, `SELECT source FROM oauth_clients WHERE client_id = $1`, id)
	if source != "dynamic" {
		t.Fatalf("source %q", source)
	}

	pub := registerClient(c, map[string]any{"redirect_uris": []string{"http://127.0.0.1:33418/cb"}, "token_endpoint_auth_method": "none",
		"scope": "openid offline_access", "grant_types": []string{"authorization_code"}, "client_uri": "https://cli.example/",
		"post_logout_redirect_uris": []string{"http://127.0.0.1/bye"}})
	if pub.Status != 201 {
		t.Fatalf("public: %d %s", pub.Status, pub.Raw)
	}
	for _, k := range []string{"client_secret", "client_secret_expires_at", "client_name", "logo_uri"} {
		if _, ok := pub.Body[k]; ok {
			t.Errorf("public client: %s present: %s", k, pub.Raw)
		}
	}
	if pub.Body["scope"] != "openid offline_access" || pub.Body["client_uri"] != "https://cli.example/" ||
		fmt.Sprint(pub.Body["post_logout_redirect_uris"]) != "[http://127.0.0.1/bye]" || fmt.Sprint(pub.Body["grant_types"]) != "[authorization_code]" {
		t.Errorf("public client: %s", pub.Raw)
	}

	for _, bad := range []struct {
		body any
		code string
	}{
		{map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"https://good.example@evil.example/cb"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"https://evil.example/cb#x"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"https://*.example/cb"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"http://example.com/cb"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"myapp:/cb"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "post_logout_redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
		{map[string]any{"redirect_uris": "https://a.example/cb"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"client_credentials"}}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "scope": "openid admin"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_name": 5}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "logo_uri": "http://a.example/l.png"}, "invalid_client_metadata"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "id_token_signed_response_alg": "none"}, "invalid_client_metadata"},
		{"[1]", "invalid_client_metadata"},
		{"{", "invalid_client_metadata"},
	} {
		wantOAuthError(t, registerClient(c, bad.body), 400, bad.code)
	}
	wantOAuthError(t, registerClient(c, `{"redirect_uris":["https://a.example/cb"]}`, "Content-Type", "text/plain"), 400, "invalid_client_metadata")

	// CORS: any origin, never credentials, also for an origin the
	// first-party API trusts.
	for _, origin := range []string{"https://agent.example", "https://app.test"} {
		r := registerClient(c, map[string]any{"redirect_uris": []string{"https://a.example/cb"}}, "Origin", origin)
		if r.Status != 201 || r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q, credentials %q", origin, r.Status,
				r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Credentials"))
		}
		pre := c.call(http.MethodOptions, "/oauth2/register", nil, "Origin", origin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "content-type")
		if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "*" || pre.Header.Get("Access-Control-Allow-Credentials") != "" ||
			!strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "content-type") {
			t.Errorf("%s preflight: %d %v", origin, pre.Status, pre.Header)
		}
	}
}

// TestDynamicRegistrationOff: without OAUTH_DYNAMIC_REGISTRATION (or the
// provider) there is no registration endpoint.
func TestDynamicRegistrationOff(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{oauthEnv(t), testEnv(t)} {
		s := startServer(t, env, "api")
		r := registerClient(s.client(), map[string]any{"redirect_uris": []string{"https://a.example/cb"}})
		if r.Status != 404 {
			t.Fatalf("got %d %s, want 404", r.Status, r.Raw)
		}
	}
}

// TestDynamicRegistrationRateLimited: registrations spend the client
// address's oauth budget (AUTH_RATE_LIMIT_MAX per window); past it the
// endpoint answers 429 with Retry-After and the protocol's error object,
// and registers nothing.
func TestDynamicRegistrationRateLimited(t *testing.T) {
	t.Parallel()
	s := startServer(t, oauthEnv(t, "OAUTH_DYNAMIC_REGISTRATION=true", "AUTH_RATE_LIMIT_MAX=3", "AUTH_RATE_LIMIT_WINDOW=15m"), "api")
	c := s.client()
	body := map[string]any{"redirect_uris": []string{"https://a.example/cb"}}
	for i := range 3 {
		if r := registerClient(c, body); r.Status != 201 {
			t.Fatalf("registration %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := registerClient(c, body)
	wantOAuthError(t, r, 429, "temporarily_unavailable")
	if r.str("error_description") != "too many requests; retry later" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("refusal %s, Retry-After %q", r.Raw, r.Header.Get("Retry-After"))
	}
	var n int
	_ = s.db().GetContext(t.Context(), &n, `SELECT count(*) FROM oauth_clients`)
	if n != 3 {
		t.Fatalf("%d clients registered, want 3", n)
	}
}

// TestUnusedDynamicClientsPurged: the clock's purge deletes a dynamic
// client that completed no authorization within 24 h of its registration,
// and keeps a younger one, a used one and an admin client.
func TestUnusedDynamicClientsPurged(t *testing.T) {
	t.Parallel()
	clock := &testclock.Offset{}
	env := oauthEnv(t, "OAUTH_DYNAMIC_REGISTRATION=true", "PURGE_SESSIONS_SCHEDULE=* * * * * *")
	s, a := oauthClientsServer(t, env, clock.Now)
	db := s.db()
	c := s.client()
	reg := func() string {
		r := registerClient(c, map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}, "token_endpoint_auth_method": "none"})
		if r.Status != 201 {
			t.Fatalf("register: %d %s", r.Status, r.Raw)
		}
		return r.str("client_id")
	}
	unused, used := reg(), reg()
	admin := a.oauthCall("/create", map[string]any{"name": "Web", "redirectUris": []string{"https://app.example/cb"}}).want(t, 201, "")
	adminID := fmt.Sprint(admin.obj("client")["clientId"])
	sqlExec(t, db, `UPDATE oauth_clients SET last_used_at = $2 WHERE client_id = $1`, used, clock.Now())
	exists := func(id string) bool {
		var n int
		_ = db.GetContext(t.Context(), &n, `SELECT count(*) FROM oauth_clients WHERE client_id = $1`, id)
		return n == 1
	}
	// A purge ran while the clients were young: all stay.
	runs := strings.Count(s.logs.String(), "purged unused dynamic OAuth clients")
	poll.Until(t, 20*time.Second, "a purge after the registrations", func() bool {
		return strings.Count(s.logs.String(), "purged unused dynamic OAuth clients") > runs
	})
	if !exists(unused) || !exists(used) || !exists(adminID) {
		t.Fatal("a purge deleted a client younger than 24 h")
	}
	clock.Advance(23 * time.Hour)
	late := reg()
	clock.Advance(2 * time.Hour)
	poll.Until(t, 20*time.Second, "the unused dynamic client purged", func() bool { return !exists(unused) })
	if !exists(used) || !exists(adminID) || !exists(late) {
		t.Fatalf("purged too much: used %v, admin %v, registered 2 h ago %v", exists(used), exists(adminID), exists(late))
	}
}
