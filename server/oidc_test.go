package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOIDCSignupAndReturn: an unknown identity signs up a user without a
// password (its address unverified, the provider not being trusted),
// whose session is federated; the same identity signs it in again after
// the provider's address changed (the identity's address follows, the
// user's does not); a result code is single use.
func TestOIDCSignupAndReturn(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	providers := w.s.client().call(http.MethodGet, "/v1/users/oidc/providers", nil).want(t, 200, "")
	if got := providers.Raw; !strings.Contains(got, `{"id":"idp","name":"Test IdP"}`) || !strings.Contains(got, `{"id":"trusted","name":"trusted"}`) {
		t.Errorf("providers: %s", got)
	}
	email := uniqueEmail()
	sub := w.person(map[string]any{"email": strings.ToUpper(email), "email_verified": true, "given_name": "Ada", "family_name": "Lovelace"})
	c := w.s.client()
	start := c.call(http.MethodPost, "/v1/users/oidc/start", map[string]any{"provider": "idp", "redirectTo": oidcLanding}).want(t, 200, "")
	cookie := setCookieLine(start, "oidc-flow")
	for _, attr := range []string{"Path=/v1/users/oidc/", "Max-Age=600", "HttpOnly", "SameSite=Lax"} {
		if !slices.Contains(strings.Split(cookie, "; "), attr) {
			t.Errorf("oidc-flow cookie %q lacks %s", cookie, attr)
		}
	}
	cb := w.atProvider(c, start.str("url"), sub)
	v := w.landing(w.callback(c, cb))
	r := w.exchange(c, v.Get("oidc"), nil).want(t, 201, "")
	user := r.obj("user")
	if user["email"] != email || user["hasPassword"] != false || user["emailVerifiedAt"] != nil || user["firstName"] != "Ada" {
		t.Errorf("new user: %v", user)
	}
	if setCookieLine(r, "jwt-user-refresh") == "" {
		t.Error("no refresh cookie")
	}
	w.exchange(w.s.client(), v.Get("oidc"), nil).want(t, 400, "USER_BAD_REQUEST_INVALID_OIDC_CODE")
	u := &registered{c: c, email: email, id: user["id"].(string), token: r.str("token")}
	sessions := c.call(http.MethodGet, "/v1/users/sessions", nil, u.auth()...).want(t, 200, "")
	sess := sessions.Body["sessions"].([]any)[0].(map[string]any)
	if !slices.Equal(strs(sess["authMethods"]), []string{"fed"}) || sess["provider"] != "idp" || sess["aal"] != float64(1) {
		t.Errorf("session: %v", sess)
	}
	if n := eventsOf(t, w.s.db(), u.id, "register"); n != 1 {
		t.Errorf("register events: %d, want 1", n)
	}

	changed := uniqueEmail()
	w.p.SetAccount(sub, map[string]any{"email": changed, "email_verified": true})
	again := w.login("idp", sub)
	if again.id != u.id || again.email != email {
		t.Errorf("return after the provider's address changed: user %s %s, want %s %s", again.id, again.email, u.id, email)
	}
	ids := again.c.call(http.MethodGet, "/v1/users/identities", nil, again.auth()...).want(t, 200, "")
	list := ids.Body["identities"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["email"] != changed || list[0].(map[string]any)["provider"] != "idp" ||
		list[0].(map[string]any)["lastLoginAt"] == nil {
		t.Errorf("identities: %s", ids.Raw)
	}
	if n := eventsOf(t, w.s.db(), u.id, "login"); n != 1 {
		t.Errorf("login events: %d, want 1", n)
	}
}

// TestOIDCEmailMatchNeverLogsIn: an identity whose address is a user's
// never signs that user in on the address alone: refused with
// ACCOUNT_EXISTS (recorded on the user) from an untrusted provider even
// when it says verified, from a trusted one when it does not say so, and
// from a trusted one when the user has not verified the address; it
// links automatically only under all the conditions.
func TestOIDCEmailMatchNeverLogsIn(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	victim := register(t, w.s.client(), "web")
	sessionsBefore := w.count(`SELECT count(*) FROM user_sessions WHERE user_id = $1`, victim.id)
	for _, tc := range []struct {
		name, provider string
		verified       any
	}{
		{"untrusted provider saying verified", "idp", true},
		{"trusted provider, not verified", "trusted", false},
		{"trusted provider, verified as a string false", "trusted", "false"},
		{"trusted provider, verified absent", "trusted", nil},
		{"trusted provider, the local address unverified", "trusted", true},
	} {
		claims := map[string]any{"email": victim.email}
		if tc.verified != nil {
			claims["email_verified"] = tc.verified
		}
		v := w.signIn(w.s.client(), tc.provider, w.person(claims))
		wantLandingError(t, v, "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS")
	}
	if n := w.count(`SELECT count(*) FROM user_identities`); n != 0 {
		t.Errorf("identities: %d, want none", n)
	}
	if n := w.count(`SELECT count(*) FROM user_sessions WHERE user_id = $1`, victim.id); n != sessionsBefore {
		t.Errorf("victim's sessions: %d, want %d", n, sessionsBefore)
	}
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'identity_login_failed'
		AND data->>'reason' = 'account_exists'`, victim.id); n != 5 {
		t.Errorf("identity_login_failed events of the victim: %d, want 5", n)
	}
	sqlExec(t, w.s.db(), `UPDATE users SET email_verified_at = now() WHERE id = $1`, victim.id)
	v := w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": victim.email, "email_verified": true}))
	wantLandingError(t, v, "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS")
	linked := w.login("trusted", w.person(map[string]any{"email": victim.email, "email_verified": "true"}))
	if linked.id != victim.id {
		t.Fatalf("automatic link: logged in %s, want the verified owner %s", linked.id, victim.id)
	}
	if n := eventsOf(t, w.s.db(), victim.id, "identity_linked"); n != 1 {
		t.Errorf("identity_linked events: %d, want 1", n)
	}
}

// TestOIDCTrustedSignup: a trusted provider's verified address (a JSON
// true or the string "true") is verified at signup; an absent claim is
// not, and then the verification mail is due.
func TestOIDCTrustedSignup(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	for verified, want := range map[any]bool{true: true, "true": true, "yes": false, nil: false} {
		claims := map[string]any{"email": uniqueEmail()}
		if verified != nil {
			claims["email_verified"] = verified
		}
		u := w.login("trusted", w.person(claims))
		if got := u.res.obj("user")["emailVerifiedAt"] != nil; got != want {
			t.Errorf("email_verified %v: verified %v, want %v", verified, got, want)
		}
	}
}

// TestOIDCSignupDisabled: without ALLOW_SIGNUP an unknown identity creates
// nothing.
func TestOIDCSignupDisabled(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil, "OIDC_IDP_ALLOW_SIGNUP=false")
	v := w.signIn(w.s.client(), "idp", w.person(map[string]any{"email": uniqueEmail(), "email_verified": true}))
	wantLandingError(t, v, "USER_BAD_REQUEST_SIGNUP_DISABLED")
	if n := w.count(`SELECT count(*) FROM users`); n != 0 {
		t.Errorf("users: %d, want none", n)
	}
}

// TestOIDCInactiveUser: a known identity of a deactivated user gets the
// login's code, recorded on the user.
func TestOIDCInactiveUser(t *testing.T) {
	t.Parallel()
	w := newOIDCWorld(t, nil)
	sub := w.person(map[string]any{"email": uniqueEmail()})
	u := w.login("idp", sub)
	sqlExec(t, w.s.db(), `UPDATE users SET is_active = false WHERE id = $1`, u.id)
	wantLandingError(t, w.signIn(w.s.client(), "idp", sub), "USER_BAD_REQUEST_ACCOUNT_INACTIVE")
	if n := w.count(`SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'identity_login_failed'
		AND data->>'reason' = 'account_inactive'`, u.id); n != 1 {
		t.Errorf("identity_login_failed events: %d, want 1", n)
	}
}
