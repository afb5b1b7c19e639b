package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testclock"
)

// budgetServer starts a server on a test clock that trusts X-Forwarded-For
// and mails to an SMTP sink, and enrols the TOTP of a web user with a
// verified address there.
func budgetServer(t *testing.T, overrides ...string) (*testServer, *smtptest.Server, *testclock.Clock, *mfaUser) {
	t.Helper()
	smtp := smtptest.Start(t)
	env := append([]string{"TRUST_PROXY=true", "SMTP_URL=" + smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s"}, overrides...)
	s, clock, m := mfaServer(t, env...)
	// A verified address: a reset of an unverified one removes the factors.
	sqlExec(t, s.db(), `UPDATE users SET email_verified_at = now() WHERE id = $1`, m.id)
	return s, smtp, clock, m
}

// guessFrom fails n second steps of email from the address ip (a first
// step, then wrong TOTP codes, a new first step each time a challenge
// burns), expecting each to be evaluated (400).
func guessFrom(t *testing.T, s *testServer, email, password, ip string, n int) {
	t.Helper()
	token := ""
	for i := range n {
		if i%5 == 0 { // MFA_CHALLENGE_MAX_ATTEMPTS wrong codes burn a challenge
			r := login(s.client(), email, password, ip).want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED")
			token = r.str("mfaToken")
		}
		verify(s.client(), "user", token, "totp", "000000", xff(ip)...).want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	}
}

// TestResetGivesNoSecondFactorTrust: a password reset trusts its client
// for passwords only. Someone who controls the mailbox of an account whose
// slow-down bites (50 wrong codes from many addresses) resets the password
// and logs in with it at once, but the second step still waits, from that
// address and with the device the reset handed out; the owner's browser,
// trusted by a completed login, is not slowed.
func TestResetGivesNoSecondFactorTrust(t *testing.T) {
	t.Parallel()
	s, smtp, clock, m := budgetServer(t)
	for i := range 10 {
		guessFrom(t, s, m.email, strongPassword, fmt.Sprintf("198.51.100.%d", i), 5)
	}
	stranger := "192.0.2.90"
	login(s.client(), m.email, strongPassword, stranger).want(t, 429, "TOO_MANY_REQUESTS")

	mailbox := s.client() // keeps the device cookie the reset sets
	mailbox.call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": m.email}, xff(stranger)...).want(t, 200, "")
	reset := tokenOf(t, waitMails(t, smtp, m.email, "Reset your password", 1)[0], resetLinkRe)
	mailbox.call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}, xff(stranger)...).want(t, 200, "")
	for _, ip := range []string{stranger, "192.0.2.91"} {
		r := mailbox.call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": newPassword}, xff(ip)...)
		token := r.want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
		verify(mailbox, "user", token, "totp", "000000", xff(ip)...).want(t, 429, "TOO_MANY_REQUESTS")
	}

	clock.Advance(30 * time.Second)
	r := m.c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": newPassword}, xff("192.0.2.92")...)
	token := r.want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
	verify(m.c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), xff("192.0.2.92")...).want(t, 201, "")
}

// loginWithTOTP completes a login of m from ip with c: the first step,
// then the current code at the next 30-second step.
func loginWithTOTP(t *testing.T, c *client, clock *testclock.Clock, m *mfaUser, password, ip string) *apiResponse {
	t.Helper()
	r := c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": password}, xff(ip)...)
	token := r.want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
	clock.Advance(30 * time.Second)
	return verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), xff(ip)...)
}

// mfaFailuresOf reads the owner's count of consecutive failed second
// factors.
func mfaFailuresOf(t testing.TB, s *testServer, table, id string) int {
	t.Helper()
	var n int
	if err := s.db().GetContext(t.Context(), &n, `SELECT mfa_failures FROM `+table+` WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMFABudgetStopsTheSecondStep: 100 wrong codes in a row, half from
// strangers until the account's slow-down bites and half from clients
// trusted by a completed login (which the slow-down never slows), stop
// the account's second factors: the right code is refused with 429
// USER_TOO_MANY_MFA_FAILURES (no Retry-After: it lasts until a reset),
// from the owner's own browser too, and the refusal is neither evaluated
// nor counted. A password re-authentication still works; one with a
// factor, and turning TOTP off, are refused. A password reset lifts the
// stop.
func TestMFABudgetStopsTheSecondStep(t *testing.T) {
	t.Parallel()
	s, smtp, clock, m := budgetServer(t)
	trusted := make([]string, 10)
	for i := range trusted {
		trusted[i] = fmt.Sprintf("192.0.2.%d", 100+i)
		loginWithTOTP(t, s.client(), clock, m, strongPassword, trusted[i]).want(t, 201, "")
	}
	for i := range 10 {
		guessFrom(t, s, m.email, strongPassword, fmt.Sprintf("198.51.100.%d", i), 5)
	}
	login(s.client(), m.email, strongPassword, "198.51.100.99").want(t, 429, "TOO_MANY_REQUESTS")
	for _, ip := range trusted {
		guessFrom(t, s, m.email, strongPassword, ip, 5)
	}
	if n := mfaFailuresOf(t, s, "users", m.id); n != 100 {
		t.Fatalf("mfa_failures = %d after 100 wrong codes", n)
	}

	r := m.c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": strongPassword})
	token := r.want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
	clock.Advance(30 * time.Second)
	stopped := verify(m.c, "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 429, "USER_TOO_MANY_MFA_FAILURES")
	if ra := stopped.Header.Get("Retry-After"); ra != "" {
		t.Errorf("Retry-After %q on a stop that lasts until a reset", ra)
	}
	verify(m.c, "user", token, "recovery_code", m.codes[0]).want(t, 429, "USER_TOO_MANY_MFA_FAILURES")
	if attempts, used := challengeOf(t, s, token); attempts != 0 || used {
		t.Errorf("a stopped second step was evaluated: attempts %d, used %v", attempts, used)
	}
	reauth := func(args map[string]any) *apiResponse {
		return m.c.call(http.MethodPost, "/v1/users/reauthenticate", args, m.auth()...)
	}
	reauth(map[string]any{"method": "totp", "code": totpAt(t, m.secret, clock.Now())}).want(t, 429, "USER_TOO_MANY_MFA_FAILURES")
	m.c.call(http.MethodPost, "/v1/users/mfa/totp/disable", map[string]any{"code": m.codes[1]}, m.auth()...).
		want(t, 429, "USER_TOO_MANY_MFA_FAILURES")
	reauth(map[string]any{"password": strongPassword}).want(t, 200, "")
	if n := mfaFailuresOf(t, s, "users", m.id); n != 100 {
		t.Errorf("mfa_failures = %d after refused attempts, want 100", n)
	}

	m.c.call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": m.email}).want(t, 200, "")
	reset := tokenOf(t, waitMails(t, smtp, m.email, "Reset your password", 1)[0], resetLinkRe)
	m.c.call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}).want(t, 200, "")
	if n := mfaFailuresOf(t, s, "users", m.id); n != 0 {
		t.Errorf("mfa_failures = %d after a reset, want 0", n)
	}
	loginWithTOTP(t, m.c, clock, m, newPassword, "192.0.2.100").want(t, 201, "")
}

// TestMFABudgetLiftedByResetMFA: an admin's resetmfa lifts a spent
// budget: once the user enrols again, the second step works. An admin's
// own spent budget refuses the admin's second step with
// ADMIN_TOO_MANY_MFA_FAILURES.
func TestMFABudgetLiftedByResetMFA(t *testing.T) {
	t.Parallel()
	s, _, clock, m := budgetServer(t)
	env := s.env
	sqlExec(t, s.db(), `UPDATE users SET mfa_failures = 100 WHERE id = $1`, m.id)
	clock.Advance(30 * time.Second)
	token := firstStep(t, s, "/v1/users/login", m.email)
	verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 429, "USER_TOO_MANY_MFA_FAILURES")

	adminEmail := uniqueEmail()
	adminID := createAdmin(t, env, adminEmail)
	a, _ := adminLogin(t, s, adminEmail, "web")
	adminCall(a, "resetmfa", m.id).want(t, 200, "")
	if n := mfaFailuresOf(t, s, "users", m.id); n != 0 {
		t.Errorf("mfa_failures = %d after resetmfa, want 0", n)
	}
	r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": strongPassword}).want(t, 201, "")
	m.token = r.str("token")
	clock.Advance(time.Minute)
	m = enroll(t, m.registered, clock, "user")
	clock.Advance(30 * time.Second)
	token = firstStep(t, s, "/v1/users/login", m.email)
	verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")

	admin := enroll(t, &registered{c: a.c, email: adminEmail, id: adminID, token: a.token}, clock, "admin")
	sqlExec(t, s.db(), `UPDATE admins SET mfa_failures = 100 WHERE id = $1`, adminID)
	clock.Advance(30 * time.Second)
	token = firstStep(t, s, "/v1/admins/login", adminEmail)
	verify(s.client(), "admin", token, "totp", totpAt(t, admin.secret, clock.Now())).want(t, 429, "ADMIN_TOO_MANY_MFA_FAILURES")
}

// TestMFAFailureNotice: the tenth wrong second factor in a row (at the
// second step or in a re-authentication) is answered 400 like the others
// and mails the owner a notice over SMTP, naming the account and without
// a secret. The engine's TestMFAFailureNotice checks when notices go.
func TestMFAFailureNotice(t *testing.T) {
	t.Parallel()
	s, smtp, _, m := budgetServer(t)
	for range 2 {
		m.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"method": "totp", "code": "000000"}, m.auth()...).
			want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	}
	guessFrom(t, s, m.email, strongPassword, "198.51.100.1", 5)
	guessFrom(t, s, m.email, strongPassword, "198.51.100.2", 3)
	notice := waitMails(t, smtp, m.email, "Wrong sign-in codes were entered", 1)[0]
	if !strings.Contains(notice.Text, m.email) || strings.Contains(notice.Text, m.secret) || strings.Contains(notice.HTML, m.secret) {
		t.Errorf("notice:\n%s", notice.Text)
	}
}

// TestAdminResetMFACommand: an admin whose second step stopped after 100
// failures has a way back, "server admin resetmfa --email E" on the
// server: its factors go, its count is 0, its sessions end, the event
// says an operator did it, and it logs in with its password alone.
func TestAdminResetMFACommand(t *testing.T) {
	t.Parallel()
	s, _, clock, _ := budgetServer(t)
	email := uniqueEmail()
	id := createAdmin(t, s.env, email)
	a, _ := adminLogin(t, s, email, "web")
	admin := enroll(t, &registered{c: a.c, email: email, id: id, token: a.token}, clock, "admin")
	sqlExec(t, s.db(), `UPDATE admins SET mfa_failures = 100 WHERE id = $1`, id)
	clock.Advance(30 * time.Second)
	token := firstStep(t, s, "/v1/admins/login", email)
	verify(s.client(), "admin", token, "totp", totpAt(t, admin.secret, clock.Now())).want(t, 429, "ADMIN_TOO_MANY_MFA_FAILURES")

	var out syncbuf.Buffer // go-redis may log into the last run's logger from another test
	code := run(context.Background(), &environment{args: []string{"admin", "resetmfa", "--email", strings.ToUpper(email)},
		getenv: func(k string) string { return s.env[k] }, stdout: &out, stderr: &out})
	if code != 0 || !strings.Contains(out.String(), `"mfaEnabled":false`) {
		t.Fatalf("admin resetmfa: exit %d\n%s", code, out.String())
	}
	if n := mfaFailuresOf(t, s, "admins", id); n != 0 {
		t.Errorf("mfa_failures = %d after the command, want 0", n)
	}
	admin.c.call(http.MethodPost, "/v1/admins/read", nil, "Authorization", "jwt-admin "+admin.token).want(t, 401, "UNAUTHORIZED")
	s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword}).want(t, 201, "")
	var data string
	if err := s.db().GetContext(t.Context(), &data, `SELECT data::text FROM security_events
		WHERE owner_type = 'admin' AND owner_id = $1 AND type = 'mfa_reset'`, id); err != nil || !strings.Contains(data, `"by": "operator"`) {
		t.Errorf("mfa_reset event data %s (%v), want by operator", data, err)
	}
	if code := run(context.Background(), &environment{args: []string{"admin", "resetmfa", "--email", "nobody@example.com"},
		getenv: func(k string) string { return s.env[k] }, stdout: &out, stderr: &out}); code != 1 {
		t.Errorf("unknown admin: exit %d, want 1", code)
	}
}

// TestLoginBeforeMFAGivesNoSecondFactorTrust: a login completed while the
// account had no second factor trusts its client for passwords only. An
// attacker who logged in with the password before the owner turned TOTP
// on keeps no unthrottled second-factor guesses: once strangers' wrong
// codes make the account's slow-down bite, the attacker's second step
// waits too, from the same address and with the same device, while the
// browser that confirmed TOTP (trusted by that proof of the factor) goes
// on unslowed.
func TestLoginBeforeMFAGivesNoSecondFactorTrust(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t, "TRUST_PROXY=true"), clock.Now)
	u := register(t, s.client(), "web")
	attacker, attackerIP := s.client(), "192.0.2.50" // keeps the device cookie of its login
	login(attacker, u.email, strongPassword, attackerIP).want(t, 201, "")
	m := enroll(t, u, clock, "user")

	for i := range 10 {
		guessFrom(t, s, m.email, strongPassword, fmt.Sprintf("198.51.100.%d", i), 5)
	}
	login(s.client(), m.email, strongPassword, "198.51.100.99").want(t, 429, "TOO_MANY_REQUESTS")
	token := login(attacker, m.email, strongPassword, attackerIP).want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
	verify(attacker, "user", token, "totp", "000000", xff(attackerIP)...).want(t, 429, "TOO_MANY_REQUESTS")

	clock.Advance(30 * time.Second)
	token = m.c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": strongPassword}).
		want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")
	verify(m.c, "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
}
