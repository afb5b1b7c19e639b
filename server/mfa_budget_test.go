package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/smtptest"
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
