package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/smtptest"
)

// linkStart asks to link provider with c in u's session.
func linkStart(c *client, u *registered) *apiResponse {
	return c.call(http.MethodPost, "/v1/users/oidc/link", map[string]any{"provider": "idp", "redirectTo": oidcLanding}, u.auth()...)
}

func unlink(u *registered, id string) *apiResponse {
	return u.c.call(http.MethodPost, "/v1/users/identities/unlink", map[string]any{"identityId": id}, u.auth()...)
}

// identityIDs lists the ids of u's identities.
func identityIDs(t *testing.T, u *registered) []string {
	t.Helper()
	r := u.c.call(http.MethodGet, "/v1/users/identities", nil, u.auth()...).want(t, 200, "")
	var ids []string
	for _, id := range r.Body["identities"].([]any) {
		ids = append(ids, id.(map[string]any)["id"].(string))
	}
	return ids
}

// TestOIDCLinkAndUnlink: linking and unlinking need a recent
// authentication; a link attaches the identity to the caller (who is
// mailed), after which it signs the caller in; another user cannot take
// it; unlinking removes it, with its event and mail.
func TestOIDCLinkAndUnlink(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	smtp := smtptest.Start(t)
	w := newOIDCWorldRoles(t, clock.Now, nil, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s", "ACCESS_TOKEN_EXPIRES_IN=1h")
	u := register(t, w.s.client(), "web")
	sub := w.person(map[string]any{"email": uniqueEmail(), "email_verified": true})
	clock.Advance(11 * time.Minute)
	linkStart(u.c, u).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).want(t, 200, "")
	authURL := linkStart(u.c, u).want(t, 200, "").str("url")
	if v := w.landing(w.callback(u.c, w.atProvider(u.c, authURL, sub))); v.Get("linked") != "idp" {
		t.Fatalf("link landing: %v, want linked=idp", v)
	}
	ids := identityIDs(t, u)
	if len(ids) != 1 || eventsOf(t, w.s.db(), u.id, "identity_linked") != 1 {
		t.Fatalf("after the link: identities %v, events %d", ids, eventsOf(t, w.s.db(), u.id, "identity_linked"))
	}
	waitMails(t, smtp, u.email, "Test IdP account connected", 1)

	other := register(t, w.s.client(), "web")
	authURL = linkStart(other.c, other).want(t, 200, "").str("url")
	wantLandingError(t, w.landing(w.callback(other.c, w.atProvider(other.c, authURL, sub))), "USER_BAD_REQUEST_IDENTITY_ALREADY_LINKED")
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'identity_login_failed'
		AND data->>'reason' = 'already_linked'`, other.id); n != 1 {
		t.Errorf("the other user's identity_login_failed events: %d, want 1", n)
	}
	if in := w.login("idp", sub); in.id != u.id {
		t.Errorf("sign-in with the linked identity: user %s, want %s", in.id, u.id)
	}

	clock.Advance(11 * time.Minute)
	unlink(u, ids[0]).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).want(t, 200, "")
	unlink(u, "01a2b3c4-0000-7000-8000-000000000000").want(t, 404, "USER_IDENTITY_NOT_FOUND")
	unlink(u, ids[0]).want(t, 200, "")
	if left := identityIDs(t, u); len(left) != 0 || eventsOf(t, w.s.db(), u.id, "identity_unlinked") != 1 {
		t.Errorf("after the unlink: identities %v", left)
	}
	waitMails(t, smtp, u.email, "Test IdP account removed", 1)
}

// TestOIDCLastSignInMethod: an account without a password keeps its last
// identity; with a second one linked either can go but not both. An admin
// may remove the last one (the user can still set a password by mail),
// recorded with the admin's id.
func TestOIDCLastSignInMethod(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	u := w.login("idp", w.person(map[string]any{"email": uniqueEmail()}))
	first := identityIDs(t, u)[0]
	unlink(u, first).want(t, 400, "USER_BAD_REQUEST_LAST_SIGNIN_METHOD")
	b := w.s.client() // a browser without the provider's session of the first identity
	authURL := linkStart(b, u).want(t, 200, "").str("url")
	if v := w.landing(w.callback(b, w.atProvider(b, authURL, w.person(map[string]any{"email": uniqueEmail()})))); v.Get("linked") != "idp" {
		t.Fatalf("second link: %v", v)
	}
	ids := identityIDs(t, u)
	if len(ids) != 2 || !slices.Contains(ids, first) {
		t.Fatalf("identities: %v", ids)
	}
	unlink(u, first).want(t, 200, "")
	unlink(u, ids[1]).want(t, 400, "USER_BAD_REQUEST_LAST_SIGNIN_METHOD")

	adminID := createAdmin(t, w.s.env, "desk@example.com")
	a, _ := adminLogin(t, w.s, "desk@example.com", "web")
	listed := adminCall(a, "identities", u.id).want(t, 200, "")
	if n := len(listed.Body["identities"].([]any)); n != 1 {
		t.Errorf("admin's list: %d identities, want 1", n)
	}
	admUnlink := func(id string) *apiResponse {
		return a.c.call(http.MethodPost, "/v1/admins/users/unlinkidentity", map[string]any{"id": u.id, "identityId": id}, a.auth()...)
	}
	admUnlink(ids[1]).want(t, 200, "")
	checkAdminEvent(t, w.s.db(), u.id, "identity_unlinked", adminID)
	admUnlink(ids[1]).want(t, 404, "USER_IDENTITY_NOT_FOUND")
}

// TestOIDCSecondFactor: a user with a second factor who signs in through
// the provider owes it: the exchange answers MFA_REQUIRED (no cookie, the
// result code spent), and the second step opens a federated session at
// level 2.
func TestOIDCSecondFactor(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	w := newOIDCWorld(t, clock.Now)
	sub := w.person(map[string]any{"email": uniqueEmail()})
	m := enroll(t, w.login("idp", sub), clock, "user")
	clock.Advance(30 * time.Second)
	c := w.s.client()
	code := w.signIn(c, "idp", sub).Get("oidc")
	r := w.exchange(c, code, nil).want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED")
	if r.str("mfaToken") == "" || setCookieLine(r, "jwt-user-refresh") != "" || !slices.Contains(strs(r.Body["methods"]), "totp") {
		t.Fatalf("MFA_REQUIRED: %s, cookie %q", r.Raw, setCookieLine(r, "jwt-user-refresh"))
	}
	w.exchange(c, code, nil).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	ok := verify(c, "user", r.str("mfaToken"), "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
	u := &registered{c: c, id: m.id, token: ok.str("token")}
	sessions := c.call(http.MethodGet, "/v1/users/sessions", nil, u.auth()...).want(t, 200, "")
	for _, s := range sessions.Body["sessions"].([]any) {
		sess := s.(map[string]any)
		if sess["current"] != true {
			continue
		}
		if !slices.Equal(strs(sess["authMethods"]), []string{"fed", "otp"}) || sess["aal"] != float64(2) || sess["provider"] != "idp" {
			t.Errorf("session after the second step: %v", sess)
		}
		return
	}
	t.Errorf("no current session in %s", sessions.Raw)
}
