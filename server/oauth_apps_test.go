package main

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// oauthTokens runs authorize, approve and the code exchange of client for
// u in b, and returns the access and refresh tokens.
func (s *oauthServer) oauthTokens(t *testing.T, b *browser, u *registered, clientID, secret, redirect, scope string) (string, string) {
	t.Helper()
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, redirect, challenge, "scope", scope))
	st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "code_verifier": {verifier}})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, out)
	}
	return out["access_token"].(string), out["refresh_token"].(string)
}

// appsOf lists the user's connected apps by client id.
func appsOf(t *testing.T, b *browser, u *registered) map[string]map[string]any {
	t.Helper()
	r := b.call(http.MethodPost, "/v1/users/oauth/apps", nil, u.auth()...)
	r.want(t, 200, "")
	out := map[string]map[string]any{}
	for _, x := range r.Body["apps"].([]any) {
		app := x.(map[string]any)
		out[app["clientId"].(string)] = app
	}
	return out
}

// TestOAuthRevokeApp: "Connected apps" lists the applications the user
// approved with their scopes; revoking one ends its consent and every
// session of it at once (its access token refused by userinfo, its
// refresh token by the token endpoint, on the next request; a code not
// exchanged yet is refused too), writes
// oauth_app_revoked with the client id, and leaves the user's own session
// and the other application's session alive. A second revocation, or an
// application never connected, is 404 USER_OAUTH_APP_NOT_FOUND.
func TestOAuthRevokeApp(t *testing.T) {
	s := startOAuthServer(t)
	const redirect = "https://app.example/cb"
	idA, secretA := s.addClient(t, oauthClientSpec{redirectURIs: []string{redirect}})
	idB, secretB := s.addClient(t, oauthClientSpec{redirectURIs: []string{redirect}})
	b := s.browser()
	u := loginUser(t, b)
	access1, refresh1 := s.oauthTokens(t, b, u, idA, secretA, redirect, "openid email")
	access2, refresh2 := s.oauthTokens(t, b, u, idA, secretA, redirect, "openid profile")
	accessB, _ := s.oauthTokens(t, b, u, idB, secretB, redirect, "openid")

	apps := appsOf(t, b, u)
	a := apps[idA]
	if len(apps) != 2 || a == nil || apps[idB] == nil {
		t.Fatalf("apps %v, want %s and %s", apps, idA, idB)
	}
	if got := strs(a["scopes"]); !slices.Equal(got, []string{"openid", "email", "profile"}) || a["lastUsedAt"] == nil ||
		a["createdAt"] == nil || a["name"] == "" {
		t.Errorf("app %v, want the union of the approved scopes and its times", a)
	}

	// A code approved before the revocation and exchanged after it.
	pendingVerifier, pendingChallenge := pkce()
	pending := s.codeFor(t, b, u, codeParams(idA, redirect, pendingChallenge, "scope", "openid"))

	b.call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": idA}, u.auth()...).want(t, 200, "")
	if st, out := s.tokenCall(t, idA, secretA, url.Values{"grant_type": {"authorization_code"}, "code": {pending},
		"redirect_uri": {redirect}, "code_verifier": {pendingVerifier}}); st != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a code approved before the revocation, exchanged after: %d %v, want invalid_grant", st, out)
	}
	for i, at := range []string{access1, access2} {
		if st, _, _ := s.userinfo(t, at); st != 401 {
			t.Errorf("userinfo with the revoked app's access token %d: %d, want 401", i+1, st)
		}
	}
	for i, rt := range []string{refresh1, refresh2} {
		if st, out := s.tokenCall(t, idA, secretA, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}); st != 400 || out["error"] != "invalid_grant" {
			t.Errorf("refresh %d of the revoked app: %d %v, want invalid_grant", i+1, st, out)
		}
	}
	if st, _, _ := s.userinfo(t, accessB); st != 200 {
		t.Errorf("the other app's access token: %d, want 200", st)
	}
	u.read(t).want(t, 200, "")
	if apps := appsOf(t, b, u); len(apps) != 1 || apps[idB] == nil {
		t.Errorf("apps after the revocation %v, want only %s", apps, idB)
	}
	var data struct {
		ClientID string `db:"client_id"`
		Sessions string `db:"sessions"`
	}
	if err := s.db.GetContext(t.Context(), &data, `SELECT data->>'clientId' AS client_id, data->>'sessions' AS sessions
		FROM security_events WHERE owner_id = $1 AND type = 'oauth_app_revoked'`, u.id); err != nil {
		t.Fatalf("the oauth_app_revoked event: %v", err)
	}
	if data.ClientID != idA || data.Sessions != "2" {
		t.Errorf("the event's data %+v, want clientId %s and 2 sessions", data, idA)
	}

	// The consent is gone: the next authorization asks again.
	_, challenge := pkce()
	id := s.startAuthorization(t, b, codeParams(idA, redirect, challenge, "scope", "openid"))
	r := b.call(http.MethodPost, "/v1/users/oauth/request", map[string]any{"requestId": id}, u.auth()...)
	r.want(t, 200, "")
	if r.obj("request")["consentRequired"] != true {
		t.Errorf("after the revocation the request %v, want consentRequired", r.obj("request"))
	}

	b.call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": idA}, u.auth()...).want(t, 404, "USER_OAUTH_APP_NOT_FOUND")
	b.call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": "ak_unknown"}, u.auth()...).want(t, 404, "USER_OAUTH_APP_NOT_FOUND")
	// Another user cannot revoke this user's app.
	other := register(t, s.client(), "web")
	s.client().call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": idB}, other.auth()...).want(t, 404, "USER_OAUTH_APP_NOT_FOUND")
	if st, _, _ := s.userinfo(t, accessB); st != 200 {
		t.Errorf("the other app's access token after a stranger's revocation: %d, want 200", st)
	}
}
