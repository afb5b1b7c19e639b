package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/smtptest"
)

// TestAdminSecondFactor: admins have the same engine under
// /v1/admins/mfa/ and /v1/admins/reauthenticate, with ADMIN_ codes.
func TestAdminSecondFactor(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := testEnv(t, "REAUTH_MAX_AGE=2m")
	s := startServerClock(t, env, clock.Now)
	email := uniqueEmail()
	id := createAdmin(t, env, email)
	a, _ := adminLogin(t, s, email, "app")
	m := enroll(t, &registered{c: a.c, email: email, id: id, token: a.token}, clock, "admin")
	a.token = m.token
	if st := a.c.call(http.MethodGet, "/v1/admins/mfa/status", nil, a.auth()...).want(t, 200, "").obj("mfa"); st["enabled"] != true {
		t.Errorf("status %v", st)
	}
	token := firstStep(t, s, "/v1/admins/login", email, "X-Client", "app")
	verify(s.client(), "admin", token, "totp", "000000").want(t, 400, "ADMIN_BAD_REQUEST_INVALID_TOTP_CODE")
	verify(s.client(), "admin", "nope", "totp", "000000").want(t, 400, "ADMIN_BAD_REQUEST_INVALID_MFA_TOKEN")
	clock.Advance(30 * time.Second)
	r := verify(s.client(), "admin", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
	if r.obj("admin")["email"] != email || r.Body["user"] != nil || r.str("refreshToken") == "" || setCookieLine(r, "jwt-admin-refresh") == "" {
		t.Errorf("admin's second step: %s", r.Raw)
	}
	// A user's handle is no admin's, and the other way round.
	u := enroll(t, register(t, s.client(), "web"), clock, "user")
	userToken := firstStep(t, s, "/v1/users/login", u.email)
	verify(s.client(), "admin", userToken, "recovery_code", u.codes[0]).want(t, 400, "ADMIN_BAD_REQUEST_INVALID_MFA_TOKEN")

	clock.Advance(2*time.Minute + time.Second)
	a.c.call(http.MethodPost, "/v1/admins/mfa/recoverycodes/regenerate", nil, a.auth()...).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": "Wrong-password-12"}, a.auth()...).
		want(t, 400, "ADMIN_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	// A password refreshes the session but changes no factor.
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": strongPassword}, a.auth()...).want(t, 200, "")
	refused := a.c.call(http.MethodPost, "/v1/admins/mfa/recoverycodes/regenerate", nil, a.auth()...).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	if methods := strs(refused.Body["methods"]); len(methods) == 0 || slices.Contains(methods, "password") {
		t.Errorf("refusal %s: want the factors without the password", refused.Raw)
	}
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"method": "recovery_code", "code": m.codes[0]}, a.auth()...).want(t, 200, "")
	a.c.call(http.MethodPost, "/v1/admins/mfa/recoverycodes/regenerate", nil, a.auth()...).want(t, 200, "")
}

// TestSecondFactorMailsAndAdminReset: the notices of enabling, using a
// recovery code, an admin's reset and disabling reach the user in its
// language with no secret in them; an admin's reset removes the factors,
// ends the user's sessions at once (sockets within 2 s), voids a pending
// second step, and is recorded with the admin's id.
func TestSecondFactorMailsAndAdminReset(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	smtp := smtptest.Start(t)
	env := testEnv(t, "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	s := startServerClock(t, env, clock.Now)
	db := s.db()
	adminID := createAdmin(t, env, "desk@example.com")
	a, _ := adminLogin(t, s, "desk@example.com", "web")
	c := s.client()
	email := uniqueEmail()
	res := c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword, "locale": "es"}).want(t, 201, "")
	u := &registered{c: c, email: email, id: res.obj("user")["id"].(string), token: res.str("token")}
	m := enroll(t, u, clock, "user")
	var secrets []string
	secrets = append(append(secrets, m.secret, strings.ToLower(m.secret)), m.codes...)
	noSecret := func(msg smtptest.Message) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(msg.Text, sec) || strings.Contains(msg.HTML, sec) || strings.Contains(msg.Subject, sec) {
				t.Errorf("mail %q holds a secret", msg.Subject)
			}
		}
		if msg.Header.Get("Content-Language") != "es" || !strings.Contains(msg.Text, email) || !strings.Contains(msg.HTML, email) {
			t.Errorf("mail %q: language %q, text:\n%s", msg.Subject, msg.Header.Get("Content-Language"), msg.Text)
		}
	}
	noSecret(waitMails(t, smtp, email, "La autenticación en dos pasos está activada", 1)[0])

	token := firstStep(t, s, "/v1/users/login", email)
	verify(s.client(), "user", token, "recovery_code", m.codes[0]).want(t, 201, "")
	noSecret(waitMails(t, smtp, email, "Se usó un código de recuperación", 1)[0])

	// The reset, with a socket open and a second step pending.
	pending := firstStep(t, s, "/v1/users/login", email)
	sock := connectSocket(t, s.URL, m.token)
	start := time.Now()
	r := adminCall(a, "resetmfa", m.id).want(t, 200, "")
	if r.obj("user")["mfaEnabled"] != false || r.obj("user")["id"] != m.id {
		t.Errorf("resetmfa answered %s", r.Raw)
	}
	m.read(t).want(t, 401, "UNAUTHORIZED")
	disconnectedWithin(t, sock, start, sessionEndLimit, "resetmfa: the user's socket")
	checkAdminEvent(t, db, m.id, "mfa_reset", adminID)
	noSecret(waitMails(t, smtp, email, "Se restableció tu autenticación en dos pasos", 1)[0])
	verify(s.client(), "user", pending, "recovery_code", m.codes[1]).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	adminCall(a, "resetmfa", "01a2b3c4-0000-7000-8000-000000000000").want(t, 404, "USER_NOT_FOUND")
	login := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": strongPassword}).want(t, 201, "")

	// Enabled again, then disabled.
	u.token = login.str("token")
	clock.Advance(time.Minute)
	m = enroll(t, u, clock, "user")
	secrets = append(append(secrets, m.secret), m.codes...)
	clock.Advance(30 * time.Second)
	u.c.call(http.MethodPost, "/v1/users/mfa/totp/disable", map[string]any{"code": totpAt(t, m.secret, clock.Now())}, u.auth()...).want(t, 200, "")
	noSecret(waitMails(t, smtp, email, "La autenticación en dos pasos está desactivada", 1)[0])
	for _, msg := range smtp.To(email) {
		noSecret(msg)
	}
}
