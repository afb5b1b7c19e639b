package main

import (
	"net/http"
	"slices"
	"testing"

	"github.com/descope/virtualwebauthn"

	"github.com/actionkit/actionkit/internal/smtptest"
)

// TestPasskeyAdminRoutes: admins list and remove a user's passkeys (the
// last one too, as the support desk), recorded with the admin's id, and
// resetmfa removes them all. Admins register passkeys of their own with
// the same engine and sign in with them at their own login; a user's
// passkey does not sign an admin in. The answers match the API document.
func TestPasskeyAdminRoutes(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	env := passkeyEnv(t, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s")
	s := startServer(t, env)
	db := s.db()
	conforms := documentCheck(t, s.client())
	check := func(path string, r *apiResponse) *apiResponse {
		t.Helper()
		conforms(http.MethodPost, path, r, r.Status)
		return r
	}
	adminID := createAdmin(t, env, "keys@example.com")
	a, _ := adminLogin(t, s, "keys@example.com", "web")
	ao := &owner{c: a.c, kind: "admin", id: adminID, token: a.token}
	u := register(t, s.client(), "web")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	p := addPasskey(t, userOwner(u), d, "Phone")
	waitMails(t, smtp, u.email, "A passkey was added to your account", 1)

	list := check("/v1/admins/users/passkeys", adminCall(a, "passkeys", u.id).want(t, 200, "")).Body["passkeys"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != p["id"] || list[0].(map[string]any)["name"] != "Phone" {
		t.Errorf("admin's list %v", list)
	}
	check("/v1/admins/users/passkeys", adminCall(a, "passkeys", "01a2b3c4-0000-7000-8000-000000000000").want(t, 404, "USER_NOT_FOUND"))
	remove := func(userID string, passkeyID any) *apiResponse {
		return check("/v1/admins/users/removepasskey", a.c.call(http.MethodPost, "/v1/admins/users/removepasskey",
			map[string]any{"id": userID, "passkeyId": passkeyID}, a.auth()...))
	}
	remove(u.id, "01a2b3c4-0000-7000-8000-000000000000").want(t, 404, "USER_PASSKEY_NOT_FOUND")
	remove("01a2b3c4-0000-7000-8000-000000000000", p["id"]).want(t, 404, "USER_NOT_FOUND")
	sqlExec(t, db, `UPDATE users SET password = '' WHERE id = $1`, u.id) // its last way to sign in
	remove(u.id, p["id"]).want(t, 200, "")
	checkAdminEvent(t, db, u.id, "passkey_removed", adminID)
	waitMails(t, smtp, u.email, "A passkey was removed from your account", 1)
	passkeyLogin(t, s, "user", d).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")

	// An admin's own passkey.
	ad := newDevice(virtualwebauthn.AuthenticatorOptions{BackupEligible: true})
	ap := addPasskey(t, ao, ad, "Admin key")
	if own := check("/v1/admins/passkeys", ao.call("passkeys", nil).want(t, 200, "")).Body["passkeys"].([]any); len(own) != 1 ||
		own[0].(map[string]any)["id"] != ap["id"] {
		t.Errorf("the admin's passkeys %v", own)
	}
	r := check("/v1/admins/passkeys/login", passkeyLogin(t, s, "admin", ad).want(t, 201, ""))
	if r.obj("admin")["id"] != adminID || r.Body["user"] != nil || setCookieLine(r, "jwt-admin-refresh") == "" {
		t.Errorf("admin passkey login %s", r.Raw)
	}
	u2 := register(t, s.client(), "web")
	ud := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(u2), ud, "")
	check("/v1/admins/passkeys/login", passkeyLogin(t, s, "admin", ud).want(t, 400, "ADMIN_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS"))
	check("/v1/users/passkeys/login", passkeyLogin(t, s, "user", ad).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS"))
	if n := eventsOf(t, db, u2.id, "passkey_added"); n != 1 {
		t.Errorf("passkey_added of the second user: %d", n)
	}
	// The admin's password login now owes a second factor.
	s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": "keys@example.com", "password": strongPassword}).
		want(t, 403, "ADMIN_FORBIDDEN_MFA_REQUIRED")

	// resetmfa is sensitive: the admin, who now has a second factor, must
	// have used it in this session. Then it removes every passkey of the user.
	refused := adminCall(a, "resetmfa", u2.id).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	if m, _ := refused.Body["methods"].([]any); !slices.Contains(m, any("webauthn")) {
		t.Errorf("methods of the refusal: %v, want webauthn among them", m)
	}
	reauthWithPasskey(t, ao, ad).want(t, 200, "")
	adminCall(a, "resetmfa", u2.id).want(t, 200, "")
	if list := adminCall(a, "passkeys", u2.id).want(t, 200, "").Body["passkeys"].([]any); len(list) != 0 {
		t.Errorf("passkeys after resetmfa: %v", list)
	}
}
