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
// the account, the address becomes
// verified, and a notice lists the removed identity.
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
	if n := w.count(`SELECT count(*) FROM user_identities WHERE user_id = $1`, attacker.id); n != 0 {
		t.Fatalf("%d identities after the reset, want 0", n)
	}
	wantLandingError(t, w.signIn(w.s.client(), "idp", sub), "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS")

	r := w.s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": victim, "password": newPassword}).want(t, 201, "")
	if r.obj("user")["emailVerifiedAt"] == nil || r.obj("user")["id"] != attacker.id {
		t.Errorf("the victim's account after the reset: %v", r.obj("user"))
	}
	m := waitMails(t, smtp, victim, removedSubject, 1)[0]
	if !strings.Contains(m.Text, "sign-in with Test IdP") || strings.Contains(m.Text, "passkey") {
		t.Errorf("notice:\n%s", m.Text)
	}
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'identity_unlinked'
		AND data->>'reason' = 'password_reset_unverified' AND data->>'provider' = 'idp'`, attacker.id); n != 1 {
		t.Errorf("%d identity_unlinked events of the reset, want 1", n)
	}
}

// TestResetRemovesPreHijackedFactors: an attacker registers with the
// victim's address and adds TOTP and a passkey. The victim's reset removes
// both and the recovery codes, so the next password login asks for no
// second factor, the attacker's passkey and codes no longer sign in, and
// the notice lists each removal.
func TestResetRemovesPreHijackedFactors(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	env := passkeyEnv(t, "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	s := startServerClock(t, env, clock.Now)
	db := s.db()
	m := enroll(t, register(t, s.client(), "web"), clock, "user")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(m.registered), d, "Attacker key")

	resetByMail(t, s, smtp, m.email, 1)
	for table, owner := range map[string]string{"webauthn_credentials": "owner_id", "mfa_totp": "owner_id", "mfa_recovery_codes": "owner_id"} {
		var n int
		if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM `+table+` WHERE `+owner+` = $1`, m.id); err != nil || n != 0 {
			t.Errorf("%s: %d rows after the reset (%v), want 0", table, n, err)
		}
	}
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
	if n := eventsOf(t, db, m.id, "passkey_removed"); n != 1 {
		t.Errorf("%d passkey_removed events, want 1", n)
	}
	if n := eventsOf(t, db, m.id, "mfa_disabled"); n != 1 {
		t.Errorf("%d mfa_disabled events, want 1", n)
	}
}

// TestResetOfVerifiedAccountKeepsFactors: a reset of an account whose
// address is verified removes nothing and sends no notice of removals.
func TestResetOfVerifiedAccountKeepsFactors(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	env := passkeyEnv(t, "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	s := startServerClock(t, env, clock.Now)
	u := register(t, s.client(), "web")
	verifyByMail(t, s, smtp, u.email)
	m := enroll(t, u, clock, "user")
	addPasskey(t, userOwner(m.registered), newDevice(virtualwebauthn.AuthenticatorOptions{}), "Mine")

	resetByMail(t, s, smtp, m.email, 1)
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": newPassword}).
		want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED")
	var keys int
	if err := s.db().GetContext(t.Context(), &keys, `SELECT count(*) FROM webauthn_credentials WHERE owner_id = $1`, m.id); err != nil || keys != 1 {
		t.Errorf("%d passkeys after the reset (%v), want 1", keys, err)
	}
	var removed string
	if err := s.db().GetContext(t.Context(), &removed, `SELECT data->>'removed' FROM security_events
		WHERE owner_id = $1 AND type = 'password_reset'`, m.id); err != nil || removed != "0" {
		t.Errorf("password_reset event: removed %q (%v), want 0", removed, err)
	}
	// The reset mail of a second reset arrives after any notice of the
	// first would have: none was queued.
	resetByMail(t, s, smtp, m.email, 2)
	if n := len(mailsOf(smtp, m.email, removedSubject)); n != 0 {
		t.Errorf("%d notices of removals, want 0", n)
	}
}

// verifyByMail confirms email with the link of its verification mail.
func verifyByMail(t *testing.T, s *testServer, smtp *smtptest.Server, email string) {
	t.Helper()
	token := tokenOf(t, waitMails(t, smtp, email, "Confirm your e-mail address", 1)[0], verifyLinkRe)
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": token}).want(t, 200, "")
}
