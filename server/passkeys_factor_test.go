package main

import (
	"encoding/base64"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
)

// TestPasskeyAsSecondFactor: a user with a password and a passkey gets
// MFA_REQUIRED at a password login, with webauthn among the methods; the
// second step's options list its passkeys, and an assertion with user
// presence alone completes the login at level 2 with [pwd hwk]. A wrong
// answer counts as an attempt of the second step; a replayed one is
// refused.
func TestPasskeyAsSecondFactor(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, o, d, "Phone")

	first := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED")
	if !slices.Equal(strs(first.Body["methods"]), []string{"webauthn"}) {
		t.Errorf("methods %v", first.Body["methods"])
	}
	token := first.str("mfaToken")
	c := s.client()
	options := func(mfaToken string) (string, map[string]any) {
		r := c.call(http.MethodPost, "/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": mfaToken}).want(t, 200, "")
		return r.str("challengeId"), r.obj("options")
	}
	verifyWith := func(mfaToken, id string, cred any) *apiResponse {
		return c.call(http.MethodPost, "/v1/users/mfa/verify",
			map[string]any{"mfaToken": mfaToken, "method": "webauthn", "challengeId": id, "credential": cred})
	}
	id, opts := options(token)
	allow, _ := opts["allowCredentials"].([]any)
	if len(allow) != 1 || allow[0].(map[string]any)["id"] != base64.RawURLEncoding.EncodeToString(d.cred.ID) ||
		opts["userVerification"] != "preferred" {
		t.Errorf("second step options %v", opts)
	}
	c.call(http.MethodPost, "/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": "nope"}).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")

	// Another login's ceremony is not this one's; a wrong key is wrong.
	other := firstStep(t, s, "/v1/users/login", u.email)
	otherID, otherOpts := options(other)
	verifyWith(token, otherID, d.get(t, otherOpts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	stranger := newDevice(virtualwebauthn.AuthenticatorOptions{})
	stranger.cred.ID = d.cred.ID
	verifyWith(token, id, stranger.get(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	if attempts, used := challengeOf(t, s, token); attempts != 2 || used {
		t.Errorf("after two wrong answers: attempts %d, used %v", attempts, used)
	}
	verifyWith(token, id, d.get(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE") // its ceremony is spent
	verifyWith(token, id, map[string]any{"id": "%%"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if attempts, _ := challengeOf(t, s, token); attempts != 3 {
		t.Errorf("a malformed credential counted: attempts %d, want 3", attempts)
	}

	// User presence suffices for a second factor.
	d.auth.Options.UserNotVerified = true
	id, opts = options(token)
	cred := d.get(t, opts)
	r := verifyWith(token, id, cred).want(t, 201, "")
	claims := jwtPayload(r.str("token"))
	if !slices.Equal(strs(claims["amr"]), []string{"pwd", "hwk"}) {
		t.Errorf("amr %v", claims["amr"])
	}
	in := &registered{c: s.client(), id: u.id, token: r.str("token")}
	for _, x := range in.c.call(http.MethodGet, "/v1/users/sessions", nil, in.auth()...).want(t, 200, "").Body["sessions"].([]any) {
		if sess := x.(map[string]any); sess["current"] == true && sess["aal"] != float64(2) {
			t.Errorf("session %v, want aal 2", sess)
		}
	}
	verifyWith(token, id, cred).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	if eventsOf(t, db, u.id, "mfa_challenge_failed") != 3 {
		t.Errorf("mfa_challenge_failed events: %d, want 3", eventsOf(t, db, u.id, "mfa_challenge_failed"))
	}
	// A passkey login, on the other hand, owes nothing more.
	d.auth.Options.UserNotVerified = false
	passkeyLogin(t, s, "user", d).want(t, 201, "")
}

// TestPasskeyReauthentication: a session opened with the password of a
// user who then adds a passkey is below level 2: the changes of the
// passkeys ask for a re-authentication with the factor (methods webauthn:
// a password only refreshes the time), which the passkey gives; a replay of its answer, another session's ceremony or an
// answer without a credential are refused with INVALID_WEBAUTHN_RESPONSE.
func TestPasskeyReauthentication(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, passkeyEnv(t, "REAUTH_MAX_AGE=2m"), clock.Now, "api")
	u := register(t, s.client(), "web")
	o := userOwner(u)
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, o, d, "")
	clock.Advance(3 * time.Minute)
	refused := o.call("passkeys/registeroptions", nil).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	if !slices.Equal(strs(refused.Body["methods"]), []string{"webauthn"}) {
		t.Errorf("methods %v", refused.Body["methods"])
	}
	// A password refreshes the time only; the session stays at level 1.
	o.call("reauthenticate", map[string]any{"password": strongPassword}).want(t, 200, "")
	o.call("passkeys/registeroptions", nil).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")

	opts := o.call("reauthenticateoptions", nil).want(t, 200, "")
	cred := d.get(t, opts.obj("options"))
	sess := o.call("reauthenticate", map[string]any{"method": "webauthn", "challengeId": opts.str("challengeId"), "credential": cred}).
		want(t, 200, "").obj("session")
	if sess["aal"] != float64(2) || !slices.Contains(strs(sess["authMethods"]), "hwk") {
		t.Errorf("session after a passkey re-authentication: %v", sess)
	}
	o.call("passkeys/registeroptions", nil).want(t, 200, "")
	o.call("reauthenticate", map[string]any{"method": "webauthn", "challengeId": opts.str("challengeId"), "credential": cred}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	o.call("reauthenticate", map[string]any{"method": "webauthn", "challengeId": opts.str("challengeId")}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	// Another session's ceremony.
	in := passkeyLogin(t, s, "user", d).want(t, 201, "")
	mine := &owner{c: s.client(), kind: "user", id: u.id, token: in.str("token")}
	theirs := o.call("reauthenticateoptions", nil).want(t, 200, "")
	mine.call("reauthenticate", map[string]any{"method": "webauthn", "challengeId": theirs.str("challengeId"),
		"credential": d.get(t, theirs.obj("options"))}).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	if n := eventsOf(t, s.db(), u.id, "reauthenticated"); n != 2 {
		t.Errorf("reauthenticated events: %d, want 2", n)
	}
}
