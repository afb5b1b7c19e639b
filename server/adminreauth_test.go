package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
)

// TestAdminSensitiveActionsNeedRecentAuthentication: an admin session
// older than REAUTH_MAX_AGE may still read and deactivate, but resetmfa,
// removepasskey, unlinkidentity, delete and revokesessions answer 403
// ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED with the methods, change
// nothing, and go through once the admin re-authenticated at
// /v1/admins/reauthenticate.
func TestAdminSensitiveActionsNeedRecentAuthentication(t *testing.T) {
	t.Parallel()
	const maxAge = 2 * time.Minute
	clock := newTestClock()
	env := passkeyEnv(t, "REAUTH_MAX_AGE="+maxAge.String())
	s := startServerClock(t, env, clock.Now, "api")
	db := s.db()
	createAdmin(t, env, "sudo@example.com")
	a, _ := adminLogin(t, s, "sudo@example.com", "app")

	withMFA := enroll(t, register(t, s.client(), "web"), clock, "user")
	withKey := register(t, s.client(), "web")
	key := addPasskey(t, userOwner(withKey), newDevice(virtualwebauthn.AuthenticatorOptions{}), "Phone")
	plain := register(t, s.client(), "web")
	unknownIdentity := "01a2b3c4-0000-7000-8000-000000000000"
	calls := []struct {
		path string
		args map[string]any
		want int
		code string
	}{
		{"resetmfa", map[string]any{"id": withMFA.id}, 200, ""},
		{"removepasskey", map[string]any{"id": withKey.id, "passkeyId": key["id"]}, 200, ""},
		// The user has no identity: the action ran when it says so.
		{"unlinkidentity", map[string]any{"id": plain.id, "identityId": unknownIdentity}, 404, "USER_IDENTITY_NOT_FOUND"},
		{"revokesessions", map[string]any{"id": plain.id}, 200, ""},
		{"delete", map[string]any{"id": plain.id}, 200, ""},
	}
	call := func(path string, args map[string]any) *apiResponse {
		return a.c.call(http.MethodPost, "/v1/admins/users/"+path, args, a.auth()...)
	}

	clock.Advance(maxAge + time.Second)
	other := register(t, s.client(), "web")
	adminCall(a, "read", other.id).want(t, 200, "")
	adminCall(a, "deactivate", other.id).want(t, 200, "")
	adminCall(a, "activate", other.id).want(t, 200, "")
	for _, c := range calls {
		r := call(c.path, c.args).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
		if m, _ := r.Body["methods"].([]any); !slices.Equal(m, []any{"password"}) {
			t.Errorf("%s: methods %v, want [password]", c.path, r.Body["methods"])
		}
	}
	// Nothing changed.
	if n := eventsOf(t, db, withMFA.id, "mfa_reset") + eventsOf(t, db, withKey.id, "passkey_removed"); n != 0 {
		t.Errorf("%d changes recorded by refused actions", n)
	}
	if liveSessions(t, db, plain.id) != 1 {
		t.Errorf("the refused revokesessions ended %s's session", plain.email)
	}
	plain.read(t).want(t, 200, "")

	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": strongPassword}, a.auth()...).want(t, 200, "")
	for _, c := range calls {
		call(c.path, c.args).want(t, c.want, c.code)
	}
	if liveSessions(t, db, plain.id) != 0 {
		t.Errorf("revokesessions and delete left %s's session", plain.email)
	}

	// The re-authentication ages too.
	clock.Advance(maxAge + time.Second)
	call("revokesessions", map[string]any{"id": withKey.id}).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
}
