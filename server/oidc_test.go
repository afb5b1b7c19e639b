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
