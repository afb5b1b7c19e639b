package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/descope/virtualwebauthn"

	"github.com/actionkit/actionkit/internal/smtptest"
)

// The subject of the notice of what a reset of an unverified account
// removed.
const removedSubject = "Sign-in methods were removed from your account"

// resetByMail completes a password reset of email through the mails of
// smtp: the n-th reset mail's link, with newPassword.
func resetByMail(t *testing.T, s *testServer, smtp *smtptest.Server, email string, n int) {
	t.Helper()
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": email}).want(t, 200, "")
	token := tokenOf(t, waitMails(t, smtp, email, "Reset your password", n)[n-1], resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": newPassword}).want(t, 200, "")
}

// TestResetRemovesPreHijackedIdentity: an attacker signs in at an
// identity provider that does not vouch for e-mails with an account
// claiming the victim's address, which makes a local account linked to
// the attacker. The victim, refused registration, resets the password:
// the attacker's identity is removed, so neither a sign-in the attacker
// completed at the provider before the reset nor the next one lands in
// the account, the address becomes verified, and the notice mailed names
// the provider. The engine's TestResetRemovesPreHijackedIdentity checks
// the removal and its event.
func TestResetRemovesPreHijackedIdentity(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	w := newOIDCWorldRoles(t, nil, nil, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s")
	victim := uniqueEmail()
	sub := w.person(map[string]any{"email": victim, "email_verified": true})
	attacker := w.login("idp", sub)
	// A sign-in completed at the provider but not exchanged yet.
	later := w.s.client()
	pending := w.signIn(later, "idp", sub).Get("oidc")
	w.s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": victim, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")

	resetByMail(t, w.s, smtp, victim, 1)
	attacker.read(t).want(t, 401, "")
	w.exchange(later, pending, nil).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	wantLandingError(t, w.signIn(w.s.client(), "idp", sub), "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS")

	r := w.s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": victim, "password": newPassword}).want(t, 201, "")
	if r.obj("user")["emailVerifiedAt"] == nil || r.obj("user")["id"] != attacker.id {
		t.Errorf("the victim's account after the reset: %v", r.obj("user"))
	}
	m := waitMails(t, smtp, victim, removedSubject, 1)[0]
	if !strings.Contains(m.Text, "sign-in with Test IdP") || strings.Contains(m.Text, "passkey") {
		t.Errorf("notice:\n%s", m.Text)
	}
}

// TestResetRemovesPreHijackedFactors: an attacker registers with the
// victim's address and adds TOTP and a passkey. After the victim's reset
// by mail the password login answers without a second factor, the
// attacker's passkey no longer signs in, and the notice mailed names each
// removal. The engine's TestResetRemovesPreHijackedFactors checks the
// removals and their events, and TestResetOfVerifiedAccountKeepsFactors
// that a verified account keeps them.
func TestResetRemovesPreHijackedFactors(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	env := passkeyEnv(t, "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	s := startServerClock(t, env, clock.Now)
	m := enroll(t, register(t, s.client(), "web"), clock, "user")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(m.registered), d, "Attacker key")

	resetByMail(t, s, smtp, m.email, 1)
	r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": newPassword}).want(t, 201, "")
	if u := r.obj("user"); u["mfaEnabled"] != false || u["emailVerifiedAt"] == nil {
		t.Errorf("user after the reset: %v", u)
	}
	passkeyLogin(t, s, "user", d).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")

	mail := waitMails(t, smtp, m.email, removedSubject, 1)[0]
	for _, want := range []string{`the passkey "Attacker key"`, "the authenticator app", "the recovery codes"} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("notice lacks %q:\n%s", want, mail.Text)
		}
	}
}

// verifyByMail confirms email with the link of its verification mail.
func verifyByMail(t *testing.T, s *testServer, smtp *smtptest.Server, email string) {
	t.Helper()
	token := tokenOf(t, waitMails(t, smtp, email, "Confirm your e-mail address", 1)[0], verifyLinkRe)
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": token}).want(t, 200, "")
}
