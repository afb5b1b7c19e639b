package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/descope/virtualwebauthn"
)

// TestPasskeyCounters: the HTTP answers of the counter rule (the engine's
// TestPasskeyCounters checks the rule and what it stores): a synced
// passkey used in backed-up state lists as backedUp; a device-bound
// passkey whose counter goes back is 400 INVALID_PASSKEY_CREDENTIALS at a
// passkey login and INVALID_WEBAUTHN_RESPONSE at a re-authentication and
// a second step.
func TestPasskeyCounters(t *testing.T) {
	t.Parallel()
	s, _, u, o := passkeyServer(t)
	synced := newDevice(virtualwebauthn.AuthenticatorOptions{BackupEligible: true})
	sp := addPasskey(t, o, synced, "Synced")
	reauthWithPasskey(t, o, synced).want(t, 200, "") // the next registration needs level 2
	synced.auth.Options.BackupState = true
	passkeyLogin(t, s, "user", synced).want(t, 201, "")
	list := o.call("passkeys", nil).want(t, 200, "").Body["passkeys"].([]any)
	for _, x := range list {
		if p := x.(map[string]any); p["id"] == sp["id"] && p["backedUp"] != true {
			t.Errorf("backedUp %v after a use in backed-up state", p["backedUp"])
		}
	}

	bound := newDevice(virtualwebauthn.AuthenticatorOptions{})
	bound.cred.Counter = 1
	addPasskey(t, o, bound, "Key")
	bound.cred.Counter = 10
	passkeyLogin(t, s, "user", bound).want(t, 201, "")
	passkeyLogin(t, s, "user", bound).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
	reauthWithPasskey(t, o, bound).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	token := firstStep(t, s, "/v1/users/login", u.email)
	c := s.client()
	opts := c.call(http.MethodPost, "/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": token}).want(t, 200, "")
	c.call(http.MethodPost, "/v1/users/mfa/verify", map[string]any{"mfaToken": token, "method": "webauthn",
		"challengeId": opts.str("challengeId"), "credential": bound.get(t, opts.obj("options"))}).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
}

// TestPasskeyRegistrationRefusals: the HTTP answers of refused
// registrations (the engine's TestPasskeyRegistrationRefusals checks what
// each refusal spends and adds): 400 INVALID_WEBAUTHN_RESPONSE for an
// answer without user verification, INVALID_WEBAUTHN_CHALLENGE for
// another session's ceremony, invalid arguments for a malformed
// credential and for a bad name.
func TestPasskeyRegistrationRefusals(t *testing.T) {
	t.Parallel()
	s, _, _, o := passkeyServer(t)
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	start := func(o *owner) (string, map[string]any) {
		r := o.call("passkeys/registeroptions", nil).want(t, 200, "")
		return r.str("challengeId"), r.obj("options")
	}
	finish := func(o *owner, id string, cred any) *apiResponse {
		return o.call("passkeys/register", map[string]any{"challengeId": id, "credential": cred})
	}
	id, opts := start(o)
	finish(o, id, newDevice(virtualwebauthn.AuthenticatorOptions{UserNotVerified: true}).create(t, opts)).
		want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	other := userOwner(register(t, s.client(), "web"))
	id, opts = start(other)
	finish(o, id, d.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE")
	finish(other, id, map[string]any{"id": "AA", "rawId": "AA", "response": map[string]any{"attestationObject": "@"}}).
		want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	finish(other, id, d.create(t, opts)).want(t, 201, "")
	// Names: trimmed, at most 64 characters, no control characters.
	for _, bad := range []string{strings.Repeat("n", 65), "a\x00b", "tab\there"} {
		id, opts = start(o)
		r := o.call("passkeys/register", map[string]any{"challengeId": id, "credential": newDevice(virtualwebauthn.AuthenticatorOptions{}).create(t, opts), "name": bad})
		if r.want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS"); r.obj("fields")["name"] == nil {
			t.Errorf("name %q: %s", bad, r.Raw)
		}
	}
}

// TestPasskeyRenameAndRemove: the HTTP answers of renaming and removing
// a passkey (the engine's TestPasskeyRenameAndRemove checks the rules):
// the renamed passkey with its name trimmed, 404 USER_PASSKEY_NOT_FOUND
// for another user's or a removed one, 400 for an empty name, and 400
// USER_BAD_REQUEST_LAST_SIGNIN_METHOD for an account's last way to sign
// in, which still signs in.
func TestPasskeyRenameAndRemove(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)
	one, two := newDevice(virtualwebauthn.AuthenticatorOptions{}), newDevice(virtualwebauthn.AuthenticatorOptions{})
	p1 := addPasskey(t, o, one, "One")
	reauthWithPasskey(t, o, one).want(t, 200, "")
	p2 := addPasskey(t, o, two, "Two")
	stranger := userOwner(register(t, s.client(), "web"))

	r := o.call("passkeys/rename", map[string]any{"passkeyId": p1["id"], "name": " First "}).want(t, 200, "").obj("passkey")
	if r["name"] != "First" || r["id"] != p1["id"] {
		t.Errorf("renamed %v", r)
	}
	stranger.call("passkeys/rename", map[string]any{"passkeyId": p1["id"], "name": "Mine"}).want(t, 404, "USER_PASSKEY_NOT_FOUND")
	o.call("passkeys/rename", map[string]any{"passkeyId": p1["id"], "name": ""}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	stranger.call("passkeys/remove", map[string]any{"passkeyId": p1["id"]}).want(t, 404, "USER_PASSKEY_NOT_FOUND")

	// Without a password (an account made another way), the last passkey stays.
	sqlExec(t, db, `UPDATE users SET password = '' WHERE id = $1`, u.id)
	if u.read(t).want(t, 200, "").obj("user")["hasPassword"] != false {
		t.Fatal("hasPassword is still true")
	}
	o.call("passkeys/remove", map[string]any{"passkeyId": p1["id"]}).want(t, 200, "")
	o.call("passkeys/remove", map[string]any{"passkeyId": p1["id"]}).want(t, 404, "USER_PASSKEY_NOT_FOUND")
	o.call("passkeys/remove", map[string]any{"passkeyId": p2["id"]}).want(t, 400, "USER_BAD_REQUEST_LAST_SIGNIN_METHOD")
	passkeyLogin(t, s, "user", two).want(t, 201, "")
}
