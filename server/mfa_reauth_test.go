package main

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// TestDisableTOTP: the HTTP answers of turning TOTP off (the engine's
// TestDisableTOTP checks what it changes): 400 without TOTP, for a wrong
// code and for a missing one, then 200 with the user, mfaEnabled false.
func TestDisableTOTP(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t), clock.Now)
	u := register(t, s.client(), "web")
	disable := func(code string) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/mfa/totp/disable", map[string]any{"code": code}, u.auth()...)
	}
	disable("123456").want(t, 400, "USER_BAD_REQUEST_MFA_NOT_ENABLED")
	u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, u.auth()...).want(t, 400, "USER_BAD_REQUEST_MFA_NOT_ENABLED")
	m := enroll(t, u, clock, "user")
	disable("000000").want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	disable("").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if r := disable(m.codes[9]).want(t, 200, ""); r.obj("user")["mfaEnabled"] != false {
		t.Errorf("answer %s", r.Raw)
	}
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": strongPassword}).want(t, 201, "")
}

// TestReauthenticationWindow: sensitive actions need an authentication no
// older than REAUTH_MAX_AGE (2 minutes here) and, once the user has a
// second factor, a session that used it (403 with the methods that meet
// it); reauthenticate answers the session, and its refusals are 400s.
// The engine's TestReauthenticate checks what each re-authentication
// changes.
func TestReauthenticationWindow(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t, "REAUTH_MAX_AGE=2m"), clock.Now)
	db := s.db()
	u := register(t, s.client(), "web")
	enrollCall := func() *apiResponse { return u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...) }
	reauth := func(args map[string]any) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/reauthenticate", args, u.auth()...)
	}
	clock.Advance(2*time.Minute + time.Second)
	r := enrollCall().want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	if !slices.Equal(strs(r.Body["methods"]), []string{"password"}) {
		t.Errorf("refusal %s: want methods [password]", r.Raw)
	}
	u.read(t).want(t, 200, "") // not sensitive
	reauth(map[string]any{"password": strongPassword + "x"}).want(t, 400, "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	reauth(map[string]any{}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	reauth(map[string]any{"password": strongPassword, "method": "totp", "code": "123456"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	reauth(map[string]any{"method": "totp", "code": "123456"}).want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	reauth(map[string]any{"method": "webauthn", "challengeId": "c"}).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	sess := reauth(map[string]any{"password": strongPassword}).want(t, 200, "").obj("session")
	if at, _ := time.Parse(time.RFC3339Nano, sess["authenticatedAt"].(string)); !at.Equal(clock.Now()) || sess["aal"] != float64(1) || sess["current"] != true {
		t.Errorf("session after a password re-authentication: %v, want authenticatedAt %v and aal 1", sess, clock.Now())
	}
	enrollCall().want(t, 200, "")

	m := enroll(t, u, clock, "user") // the session is at level 2 now
	clock.Advance(2*time.Minute + time.Second)
	regenerate := func() *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, u.auth()...)
	}
	r = regenerate().want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	if !slices.Equal(strs(r.Body["methods"]), []string{"totp", "recovery_code"}) {
		t.Errorf("refusal %s: a change of the factors is not met by a password", r.Raw)
	}
	// The level stayed 2, but a password does not satisfy a change of the
	// second factor: only a recent use of the factor does.
	reauth(map[string]any{"password": strongPassword}).want(t, 200, "")
	regenerate().want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	clock.Advance(30 * time.Second)
	reauth(map[string]any{"method": "totp", "code": totpAt(t, m.secret, clock.Now())}).want(t, 200, "")
	regenerate().want(t, 200, "")

	// A session of this user below level 2 (one that predates the factor):
	// a password brings it no further, a second factor does.
	sqlExec(t, db, `UPDATE user_sessions SET aal = 1, auth_methods = '{pwd}' WHERE user_id = $1 AND revoked_at IS NULL`, u.id)
	r = u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword}, u.auth()...).
		want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	regenerate().want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	reauth(map[string]any{"password": strongPassword}).want(t, 200, "")
	regenerate().want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	clock.Advance(30 * time.Second)
	sess = reauth(map[string]any{"method": "totp", "code": totpAt(t, m.secret, clock.Now())}).want(t, 200, "").obj("session")
	if sess["aal"] != float64(2) || !slices.Equal(strs(sess["authMethods"]), []string{"pwd", "otp"}) {
		t.Errorf("session after a TOTP re-authentication: %v", sess)
	}
	regenerate().want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword}, u.auth()...).
		want(t, 200, "")
}
