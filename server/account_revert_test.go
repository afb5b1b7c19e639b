package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"

	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// subjectReverted is the subject (en) of the mail to the address a revert
// put back.
const subjectReverted = "Your e-mail address is back: choose a new password"

// TestEmailChangeRevertLocksTakerOut is the takeover the revert must undo:
// with a stolen session the taker moves the address to theirs, resets the
// password there, links an identity-provider account, enrols TOTP and adds
// a passkey. The owner's revert removes all of it and makes the password
// unusable, so the taker's password, passkey and identity no longer sign
// in; the restored address gets a mail listing what went with a link to
// choose a new password, and with it the owner logs in with no second
// factor asked.
func TestEmailChangeRevertLocksTakerOut(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	w := newOIDCWorldRoles(t, clock.Now, nil, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s",
		"WEBAUTHN_RP_ID="+testRPID, "WEBAUTHN_ORIGINS="+testOrigin)
	s := w.s
	owner := register(t, s.client(), "app")
	stolen := loginAs(t, s, owner.email, strongPassword)

	taken := "taker-" + uniqueEmail()
	confirmChange(s, changeToken(t, smtp, stolen, taken, 1)).want(t, 200, "")
	ownersRevert := tokenOf(t, waitMails(t, smtp, owner.email, subjectChanged, 1)[0], revertLinkRe)
	resetByMail(t, s, smtp, taken, 1)
	taker := loginAs(t, s, taken, newPassword)
	sub := w.person(map[string]any{"email": "taker-idp-" + uniqueEmail(), "email_verified": true})
	authURL := linkStart(taker.c, taker).want(t, 200, "").str("url")
	if v := w.landing(w.callback(taker.c, w.atProvider(taker.c, authURL, sub))); v.Get("linked") != "idp" {
		t.Fatalf("link landing: %v, want linked=idp", v)
	}
	m := enroll(t, taker, clock, "user")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(m.registered), d, "Taker key")

	revertChange(s, ownersRevert).want(t, 200, "")
	// The taker's ways in are gone: the password, the passkey, the
	// identity (a sign-in with it makes a new account, not this one).
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": owner.email, "password": newPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": owner.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	passkeyLogin(t, s, "user", d).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
	if in := w.login("idp", sub); in.id == owner.id {
		t.Errorf("the taker's identity still signs in to the owner's account")
	}
	for _, table := range []string{"user_identities WHERE user_id = $1", "webauthn_credentials WHERE owner_id = $1",
		"mfa_totp WHERE owner_id = $1", "mfa_recovery_codes WHERE owner_id = $1"} {
		if n := w.count(`SELECT count(*) FROM `+table, owner.id); n != 0 {
			t.Errorf("%s: %d rows after the revert, want 0", table, n)
		}
	}
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND data->>'reason' = 'email_change_reverted'
		AND type IN ('identity_unlinked', 'passkey_removed', 'mfa_disabled')`, owner.id); n != 3 {
		t.Errorf("%d removal events of the revert, want 3", n)
	}

	// The restored address is told what went, with a link to choose a
	// new password: the one live way in.
	mail := waitMails(t, smtp, owner.email, subjectReverted, 1)[0]
	for _, want := range []string{"sign-in with Test IdP", `the passkey "Taker key"`, "the authenticator app", "the recovery codes"} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("the revert mail lacks %q:\n%s", want, mail.Text)
		}
	}
	reset := tokenOf(t, mail, resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": "Owner-Again-2024!"}).want(t, 200, "")
	r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": owner.email, "password": "Owner-Again-2024!"}).want(t, 201, "")
	if u := r.obj("user"); u["id"] != owner.id || u["mfaEnabled"] != false {
		t.Errorf("the owner after the revert and reset: %v", u)
	}
}

// TestEmailChangeOldAddressKeptForRevert: once a change is confirmed, the
// old address has no account, but whoever changed it must not take it
// and so kill the owner's revert. While the revert token lives the
// address is taken for a registration, for another user's e-mail change
// and for a sign-up through an identity provider, each answered as for an
// address that has an account; the owner's revert then works.
func TestEmailChangeOldAddressKeptForRevert(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	w := newOIDCWorldRoles(t, nil, nil, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s")
	s := w.s
	for _, way := range []struct {
		name string
		take func(t *testing.T, old string)
	}{
		{"register", func(t *testing.T, old string) {
			s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": old, "password": strongPassword}).
				want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
		}},
		{"confirmemailchange", func(t *testing.T, old string) {
			other := register(t, s.client(), "app")
			confirmChange(s, changeToken(t, smtp, other, old, 1)).want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
		}},
		{"identity provider", func(t *testing.T, old string) {
			sub := w.person(map[string]any{"email": old, "email_verified": true})
			wantLandingError(t, w.signIn(s.client(), "idp", sub), "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS")
		}},
	} {
		t.Run(way.name, func(t *testing.T) {
			owner := register(t, s.client(), "app")
			stolen := loginAs(t, s, owner.email, strongPassword)
			confirmChange(s, changeToken(t, smtp, stolen, "taker-"+uniqueEmail(), 1)).want(t, 200, "")
			revert := tokenOf(t, waitMails(t, smtp, owner.email, subjectChanged, 1)[0], revertLinkRe)
			way.take(t, owner.email)
			if n := w.count(`SELECT count(*) FROM users WHERE email = $1`, owner.email); n != 0 {
				t.Errorf("%d accounts hold the old address, want 0", n)
			}
			revertChange(s, revert).want(t, 200, "")
		})
	}
}

// TestEmailChangeRevertOrderIgnoresClockSkew: the owner's change is
// confirmed on one instance, the taker's next change on another whose
// clock is ten minutes behind. The owner's revert still voids the revert
// token of the taker's change, which came after it: the order of revert
// tokens is the order in which they were issued, not the instances'
// clocks.
func TestEmailChangeRevertOrderIgnoresClockSkew(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	behind := testclock.At(time.Now().Add(-10 * time.Minute))
	b := startServerClock(t, s.env, behind.Now, "api")
	owner := register(t, s.client(), "app")
	stolen := loginAs(t, s, owner.email, strongPassword)
	first, second := "skew-1-"+uniqueEmail(), "skew-2-"+uniqueEmail()
	confirmChange(s, changeToken(t, smtp, stolen, first, 1)).want(t, 200, "")
	ownersRevert := tokenOf(t, waitMails(t, smtp, owner.email, subjectChanged, 1)[0], revertLinkRe)

	taker := loginAs(t, b, first, strongPassword)
	confirmChange(b, changeToken(t, smtp, taker, second, 1)).want(t, 200, "")
	takersRevert := tokenOf(t, waitMails(t, smtp, first, subjectChanged, 1)[0], revertLinkRe)

	revertChange(s, ownersRevert).want(t, 200, "")
	revertChange(s, takersRevert).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN")
	var email string
	if err := s.db().GetContext(t.Context(), &email, `SELECT email FROM users WHERE id = $1`, owner.id); err != nil || email != owner.email {
		t.Fatalf("the account's address %q (%v), want %s", email, err, owner.email)
	}
}
