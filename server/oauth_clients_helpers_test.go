package main

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// oauthEnv is testEnv with the OAuth provider on: ACCESS_TOKEN_ALG EdDSA
// and PUBLIC_URL the address the server listens on.
func oauthEnv(t *testing.T, overrides ...string) map[string]string {
	t.Helper()
	port := freePort(t) // the existing helper of the browser tests
	return testEnv(t, append([]string{"OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PORT=" + port,
		"PUBLIC_URL=http://127.0.0.1:" + port}, overrides...)...)
}

// oauthClientsServer starts a server (roles, default all) with env on
// now (nil: the system's clock) and logs an admin in.
func oauthClientsServer(t *testing.T, env map[string]string, now func() time.Time, roles ...string) (*testServer, *adminSession) {
	t.Helper()
	s := startServerClock(t, env, now, roles...)
	email := "oauth" + strconv.FormatInt(emailSeq.Add(1), 10) + "@example.com"
	createAdmin(t, env, email)
	a, _ := adminLogin(t, s, email, "app")
	return s, a
}

// oauthCall calls the admin client action path ("" for the list).
func (a *adminSession) oauthCall(path string, args map[string]any) *apiResponse {
	if args == nil {
		args = map[string]any{}
	}
	return a.c.call(http.MethodPost, "/v1/admins/oauth/clients"+path, args, a.auth()...)
}

// wantField fails unless r is 400 BAD_REQUEST_INVALID_ARGUMENTS naming
// field.
func wantField(t testing.TB, r *apiResponse, field string) {
	t.Helper()
	r.want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := r.obj("fields")[field]; !ok {
		t.Fatalf("fields %v, want %s: %s", r.Body["fields"], field, r.Raw)
	}
}
