package main

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/openapitest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// clientSecretPattern is a secret: 32 bytes as base64url without padding.
var clientSecretPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// clientIDPattern is the client id of an admin or dynamic client.
var clientIDPattern = regexp.MustCompile(`^ak_[A-Za-z0-9_-]{32}$`)

// secretHashOf reads the stored secret hash of a client ("" for none).
func secretHashOf(t testing.TB, db *sqlx.DB, clientID string) string {
	t.Helper()
	var h *string
	if err := db.GetContext(t.Context(), &h, `SELECT secret_hash FROM oauth_clients WHERE client_id = $1`, clientID); err != nil {
		t.Fatal(err)
	}
	if h == nil {
		return ""
	}
	return *h
}

// TestAdminOAuthClientLifecycle: an admin registers a confidential and a
// public client with the defaults of §19 (the secret shown once, stored
// hashed, never listed), is refused invalid values with the field named,
// changes a client, rotates its secret (the old hash gone at once), and
// deletes it: the client is disabled, its OAuth sessions and consents end
// at once, the user's other sessions stay, and the client is not found
// any more.
func TestAdminOAuthClientLifecycle(t *testing.T) {
	t.Parallel()
	s, a := oauthClientsServer(t, oauthEnv(t), nil, "api")
	db := s.db()

	web := a.oauthCall("/create", map[string]any{"name": " Web app ", "redirectUris": []string{"https://app.example/cb"},
		"logoUri": "https://app.example/logo.png"}).want(t, 201, "")
	c := web.obj("client")
	secret := web.str("clientSecret")
	id := fmt.Sprint(c["clientId"])
	if !clientIDPattern.MatchString(id) || !clientSecretPattern.MatchString(secret) {
		t.Fatalf("client id %q, secret %q", id, secret)
	}
	want := map[string]any{"name": "Web app", "tokenEndpointAuthMethod": "client_secret_basic", "scope": "openid profile email",
		"minAal": 1.0, "idTokenAlg": "RS256", "source": "admin", "logoUri": "https://app.example/logo.png", "clientUri": nil, "lastUsedAt": nil}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("client.%s = %v, want %v", k, c[k], v)
		}
	}
	if fmt.Sprint(c["grantTypes"]) != "[authorization_code refresh_token]" || fmt.Sprint(c["postLogoutRedirectUris"]) != "[]" {
		t.Errorf("client %v", c)
	}
	for _, k := range []string{"clientId", "name", "redirectUris", "postLogoutRedirectUris", "grantTypes", "tokenEndpointAuthMethod",
		"scope", "minAal", "idTokenAlg", "logoUri", "clientUri", "source", "createdAt", "lastUsedAt"} {
		if _, ok := c[k]; !ok {
			t.Errorf("client has no %s: %v", k, c)
		}
	}
	if len(c) != 14 {
		t.Errorf("client has %d members, want the 14 of §19: %v", len(c), c)
	}
	if got := secretHashOf(t, db, id); got != sha256Hex(secret) {
		t.Fatalf("secret_hash %q, want the SHA-256 of the secret", got)
	}

	spa := a.oauthCall("/create", map[string]any{"name": "SPA", "redirectUris": []string{"http://127.0.0.1/cb", "com.example.app:/cb"},
		"tokenEndpointAuthMethod": "none", "scope": "openid offline_access", "minAal": 2, "idTokenAlg": "EdDSA"}).want(t, 201, "")
	if v, ok := spa.Body["clientSecret"]; !ok || v != nil {
		t.Fatalf("a public client's clientSecret: %v (present %v), want null", v, ok)
	}
	spaID := fmt.Sprint(spa.obj("client")["clientId"])
	machine := a.oauthCall("/create", map[string]any{"name": "Batch", "grantTypes": []string{"client_credentials"},
		"tokenEndpointAuthMethod": "client_secret_post", "scope": "openid"}).want(t, 201, "")
	if machine.str("clientSecret") == "" {
		t.Fatal("a machine client without a secret")
	}

	list := a.oauthCall("", nil).want(t, 200, "")
	clients, _ := list.Body["clients"].([]any)
	if len(clients) != 3 || clients[2].(map[string]any)["clientId"] != id {
		t.Fatalf("list %s, want three clients, newest first", list.Raw)
	}
	if strings.Contains(list.Raw, secret) || strings.Contains(strings.ToLower(list.Raw), "secret\"") {
		t.Fatalf("the list shows a secret: %s", list.Raw)
	}

	for _, bad := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"redirectUris": []string{"https://a.example/cb"}}, "name"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://good.example@evil.example/cb"}}, "redirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://evil.example/cb#x"}}, "redirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://*.example/cb"}}, "redirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"http://example.com/cb"}}, "redirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"javascript:alert(1)"}}, "redirectUris"},
		{map[string]any{"name": "X"}, "redirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "postLogoutRedirectUris": []string{"myapp:/out"}}, "postLogoutRedirectUris"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "grantTypes": []string{"implicit"}}, "grantTypes"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "tokenEndpointAuthMethod": "private_key_jwt"}, "tokenEndpointAuthMethod"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "scope": "openid admin"}, "scope"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "minAal": 3}, "minAal"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "idTokenAlg": "ES256"}, "idTokenAlg"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "logoUri": "http://a.example/l.png"}, "logoUri"},
		{map[string]any{"name": "X", "redirectUris": []string{"https://a.example/cb"}, "clientUri": "javascript:x"}, "clientUri"},
	} {
		wantField(t, a.oauthCall("/create", bad.args), bad.field)
	}

	up := a.oauthCall("/update", map[string]any{"clientId": id, "name": "Renamed", "redirectUris": []string{"https://app.example/cb2"},
		"clientUri": "https://app.example/"}).want(t, 200, "")
	if u := up.obj("client"); u["name"] != "Renamed" || fmt.Sprint(u["redirectUris"]) != "[https://app.example/cb2]" ||
		u["logoUri"] != "https://app.example/logo.png" || u["clientUri"] != "https://app.example/" || u["scope"] != "openid profile email" {
		t.Fatalf("updated %v", u)
	}
	if _, ok := up.Body["clientSecret"]; ok {
		t.Fatalf("update shows a secret: %s", up.Raw)
	}
	wantField(t, a.oauthCall("/update", map[string]any{"clientId": id, "redirectUris": []string{"http://127.0.0.1.evil.example/cb"}}), "redirectUris")
	wantField(t, a.oauthCall("/update", map[string]any{"clientId": spaID, "tokenEndpointAuthMethod": "client_secret_basic"}), "tokenEndpointAuthMethod")
	a.oauthCall("/update", map[string]any{"clientId": "ak_unknown", "name": "X"}).want(t, 404, "ADMIN_OAUTH_CLIENT_NOT_FOUND")

	rot := a.oauthCall("/rotatesecret", map[string]any{"clientId": id}).want(t, 200, "")
	newSecret := rot.str("clientSecret")
	if !clientSecretPattern.MatchString(newSecret) || newSecret == secret {
		t.Fatalf("rotated secret %q", newSecret)
	}
	if got := secretHashOf(t, db, id); got != sha256Hex(newSecret) {
		t.Fatalf("after rotation secret_hash %q, want the new secret's hash", got)
	}
	wantField(t, a.oauthCall("/rotatesecret", map[string]any{"clientId": spaID}), "clientId")
	a.oauthCall("/rotatesecret", map[string]any{"clientId": "ak_unknown"}).want(t, 404, "ADMIN_OAUTH_CLIENT_NOT_FOUND")

	// A user signed in to the client (an OAuth session and its grant) and
	// consented to it; the user's own web session must outlive the client.
	u := register(t, s.client(), "web")
	oauthSession := insertOAuthSession(t, db, u.id, id)
	if _, err := db.ExecContext(t.Context(), `INSERT INTO oauth_consents (id, user_id, client_id, scopes, created_at, updated_at)
		VALUES ($1, $2, $3, '{openid}', now(), now())`, uuid.New(), u.id, id); err != nil {
		t.Fatal(err)
	}
	if liveSessions(t, db, u.id) != 2 {
		t.Fatal("setup: want the web and the OAuth session live")
	}
	del := a.oauthCall("/delete", map[string]any{"clientId": id}).want(t, 200, "")
	if len(del.Body) != 2 { // the framework's status and success only
		t.Errorf("delete answered %s, want {}", del.Raw)
	}
	var revoked *time.Time
	if err := db.GetContext(t.Context(), &revoked, `SELECT revoked_at FROM user_sessions WHERE id = $1`, oauthSession); err != nil || revoked == nil {
		t.Fatalf("the client's OAuth session is live after delete (%v)", err)
	}
	if liveSessions(t, db, u.id) != 1 {
		t.Fatal("delete ended the user's web session too")
	}
	u.read(t).want(t, 200, "")
	var consents int
	_ = db.GetContext(t.Context(), &consents, `SELECT count(*) FROM oauth_consents WHERE client_id = $1`, id)
	if consents != 0 {
		t.Fatalf("%d consents of the deleted client left", consents)
	}
	a.oauthCall("/update", map[string]any{"clientId": id, "name": "Again"}).want(t, 404, "ADMIN_OAUTH_CLIENT_NOT_FOUND")
	for _, path := range []string{"/rotatesecret", "/delete"} {
		a.oauthCall(path, map[string]any{"clientId": id}).want(t, 404, "ADMIN_OAUTH_CLIENT_NOT_FOUND")
	}
	list = a.oauthCall("", nil).want(t, 200, "")
	if strings.Contains(list.Raw, id) {
		t.Fatalf("the deleted client is listed: %s", list.Raw)
	}
}

// insertOAuthSession stores an OAuth session of user for clientID (a
// user_sessions row with client 'oauth' and its grant), as the token
// endpoint opens one, and returns its id.
func insertOAuthSession(t testing.TB, db *sqlx.DB, user, clientID string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, chain_id, login_at, client)
		VALUES ($1, $2, $3, now() + interval '30 days', $1, now(), 'oauth')`, id, user, sha256Hex(id.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `INSERT INTO oauth_grants (session_id, user_id, client_id, scopes, audience, auth_time, created_at)
		VALUES ($1, $2, $3, '{openid}', 'http://127.0.0.1', now(), now())`, id, user, clientID); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAdminOAuthClientChangesNeedRecentAuthentication: an admin session
// older than REAUTH_MAX_AGE still lists clients, but create, update,
// rotatesecret and delete answer 403 ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED
// and change nothing, until the admin re-authenticates.
func TestAdminOAuthClientChangesNeedRecentAuthentication(t *testing.T) {
	t.Parallel()
	const maxAge = 2 * time.Minute
	clock := &testclock.Offset{}
	s, a := oauthClientsServer(t, oauthEnv(t, "REAUTH_MAX_AGE="+maxAge.String()), clock.Now, "api")
	db := s.db()
	created := a.oauthCall("/create", map[string]any{"name": "App", "redirectUris": []string{"https://app.example/cb"}}).want(t, 201, "")
	id := fmt.Sprint(created.obj("client")["clientId"])
	hash := secretHashOf(t, db, id)

	clock.Advance(maxAge + time.Second)
	a.oauthCall("", nil).want(t, 200, "")
	calls := []struct {
		path string
		args map[string]any
		want int
	}{
		{"/create", map[string]any{"name": "Other", "redirectUris": []string{"https://b.example/cb"}}, 201},
		{"/update", map[string]any{"clientId": id, "name": "Changed"}, 200},
		{"/rotatesecret", map[string]any{"clientId": id}, 200},
		{"/delete", map[string]any{"clientId": id}, 200},
	}
	for _, c := range calls {
		a.oauthCall(c.path, c.args).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	}
	var n int
	_ = db.GetContext(t.Context(), &n, `SELECT count(*) FROM oauth_clients WHERE name = 'App' AND disabled_at IS NULL`)
	if n != 1 || secretHashOf(t, db, id) != hash {
		t.Fatal("a refused change changed the client")
	}
	_ = db.GetContext(t.Context(), &n, `SELECT count(*) FROM oauth_clients`)
	if n != 1 {
		t.Fatal("a refused create registered a client")
	}
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": strongPassword}, a.auth()...).want(t, 200, "")
	for _, c := range calls {
		a.oauthCall(c.path, c.args).want(t, c.want, "")
	}
}

// TestAdminOAuthClientsOffWithoutProvider: without OAUTH_PROVIDER the
// admin client actions do not exist.
func TestAdminOAuthClientsOffWithoutProvider(t *testing.T) {
	t.Parallel()
	_, a := oauthClientsServer(t, testEnv(t), nil, "api")
	a.oauthCall("", nil).want(t, 404, "")
	a.oauthCall("/create", map[string]any{"name": "App", "redirectUris": []string{"https://app.example/cb"}}).want(t, 404, "")
}

// TestOpenAPIDocumentsOAuthClientActions: with the provider on, the
// OpenAPI document describes the admin client actions, and their real
// answers (success, 400, 404) match it.
func TestOpenAPIDocumentsOAuthClientActions(t *testing.T) {
	t.Parallel()
	env := oauthEnv(t)
	s, a := oauthClientsServer(t, env, nil, "api")
	r := s.client().call(http.MethodGet, "/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("got %d", r.Status)
	}
	openapitest.Validate(t, []byte(r.Raw))
	n := 0
	for _, d := range appActions(t, env) {
		if strings.HasPrefix(d.Spec.Path, "/v1/admins/oauth/") || d.Spec.Path == "/v1/admins/oauth/clients" {
			n++
			t.Run(d.Spec.Name, func(t *testing.T) { checkActionDocumented(t, map[string]any(r.Body), d) })
		}
	}
	if n != 5 {
		t.Fatalf("%d OAuth client actions, want 5", n)
	}
	check := documentCheck(t, a.c)
	created := a.oauthCall("/create", map[string]any{"name": "App", "redirectUris": []string{"https://app.example/cb"}})
	check(http.MethodPost, "/v1/admins/oauth/clients/create", created, 201)
	id := fmt.Sprint(created.obj("client")["clientId"])
	check(http.MethodPost, "/v1/admins/oauth/clients/create", a.oauthCall("/create", map[string]any{"name": "App"}), 400)
	check(http.MethodPost, "/v1/admins/oauth/clients", a.oauthCall("", nil), 200)
	check(http.MethodPost, "/v1/admins/oauth/clients/update", a.oauthCall("/update", map[string]any{"clientId": id, "name": "B"}), 200)
	check(http.MethodPost, "/v1/admins/oauth/clients/rotatesecret", a.oauthCall("/rotatesecret", map[string]any{"clientId": id}), 200)
	check(http.MethodPost, "/v1/admins/oauth/clients/delete", a.oauthCall("/delete", map[string]any{"clientId": id}), 200)
	check(http.MethodPost, "/v1/admins/oauth/clients/delete", a.oauthCall("/delete", map[string]any{"clientId": id}), 404)
}
