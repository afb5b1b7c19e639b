package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/descope/virtualwebauthn"
)

// TestPasskeyCounters: a synced passkey keeps a zero counter; a counter
// that goes back on a backup-eligible passkey is accepted with a
// passkey_warning and never lowers the stored one; on a device-bound
// passkey it is refused, changing nothing but the warning. The backup
// state is refreshed on every use.
func TestPasskeyCounters(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)
	warnings := func(accepted string) int {
		var n int
		if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM security_events
			WHERE owner_id = $1 AND type = 'passkey_warning' AND data->>'accepted' = $2`, u.id, accepted); err != nil {
			t.Fatal(err)
		}
		return n
	}

	synced := newDevice(virtualwebauthn.AuthenticatorOptions{BackupEligible: true})
	sp := addPasskey(t, o, synced, "Synced")
	reauthWithPasskey(t, o, synced).want(t, 200, "") // the next registration needs level 2
	passkeyLogin(t, s, "user", synced).want(t, 201, "")
	passkeyLogin(t, s, "user", synced).want(t, 201, "")
	if row := passkeyOf(t, db, sp["id"].(string)); row.SignCount != 0 || row.BackupState || warnings("true") != 0 {
		t.Errorf("a synced passkey with no counter: %+v, %d warnings", row, warnings("true"))
	}
	synced.auth.Options.BackupState = true
	synced.cred.Counter = 5
	passkeyLogin(t, s, "user", synced).want(t, 201, "")
	synced.cred.Counter = 3
	passkeyLogin(t, s, "user", synced).want(t, 201, "")
	if row := passkeyOf(t, db, sp["id"].(string)); row.SignCount != 5 || !row.BackupState || warnings("true") != 1 {
		t.Errorf("a synced passkey's counter went back: %+v, %d warnings; want 5 kept, backed up, one warning", row, warnings("true"))
	}
	list := o.call("passkeys", nil).want(t, 200, "").Body["passkeys"].([]any)
	for _, x := range list {
		if p := x.(map[string]any); p["id"] == sp["id"] && p["backedUp"] != true {
			t.Errorf("backedUp %v after a use in backed-up state", p["backedUp"])
		}
	}

	bound := newDevice(virtualwebauthn.AuthenticatorOptions{})
	bound.cred.Counter = 1
	bp := addPasskey(t, o, bound, "Key")
	bound.cred.Counter = 10
	passkeyLogin(t, s, "user", bound).want(t, 201, "")
	sessions := liveSessions(t, db, u.id)
	for _, n := range []uint32{10, 4, 0} {
		bound.cred.Counter = n
		passkeyLogin(t, s, "user", bound).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
	}
	if row := passkeyOf(t, db, bp["id"].(string)); row.SignCount != 10 || liveSessions(t, db, u.id) != sessions || warnings("false") != 3 {
		t.Errorf("a device-bound passkey's counter went back: %+v, %d sessions (want %d), %d refused warnings",
			row, liveSessions(t, db, u.id), sessions, warnings("false"))
	}
	bound.cred.Counter = 11
	passkeyLogin(t, s, "user", bound).want(t, 201, "")
	// The same rule holds at a second step and a re-authentication.
	bound.cred.Counter = 11
	reauthWithPasskey(t, o, bound).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	token := firstStep(t, s, "/v1/users/login", u.email)
	c := s.client()
	opts := c.call(http.MethodPost, "/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": token}).want(t, 200, "")
	c.call(http.MethodPost, "/v1/users/mfa/verify", map[string]any{"mfaToken": token, "method": "webauthn",
		"challengeId": opts.str("challengeId"), "credential": bound.get(t, opts.obj("options"))}).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	if row := passkeyOf(t, db, bp["id"].(string)); row.SignCount != 11 || warnings("false") != 5 {
		t.Errorf("after refused second factors: %+v, %d refused warnings, want 11 and 5", row, warnings("false"))
	}
}

// TestPasskeyRegistrationRefusals: registering a credential id already
// registered (by anyone), an answer without user verification, from
// another origin, or to a ceremony of another session is refused with
// INVALID_WEBAUTHN_RESPONSE (a challenge id not issued for this session:
// INVALID_WEBAUTHN_CHALLENGE), and adds nothing.
func TestPasskeyRegistrationRefusals(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	start := func(o *owner) (string, map[string]any) {
		r := o.call("passkeys/registeroptions", nil).want(t, 200, "")
		return r.str("challengeId"), r.obj("options")
	}
	finish := func(o *owner, id string, cred any) *apiResponse {
		return o.call("passkeys/register", map[string]any{"challengeId": id, "credential": cred})
	}
	for name, dev := range map[string]*device{
		"no user verification": newDevice(virtualwebauthn.AuthenticatorOptions{UserNotVerified: true}),
		"another origin": func() *device {
			v := newDevice(virtualwebauthn.AuthenticatorOptions{})
			v.rp.Origin = "https://evil.test"
			return v
		}(),
	} {
		id, opts := start(o)
		finish(o, id, dev.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
		finish(o, id, d.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE") // spent
		if n := eventsOf(t, db, u.id, "passkey_added"); n != 0 {
			t.Fatalf("%s: a passkey was added", name)
		}
	}
	other := userOwner(register(t, s.client(), "web"))
	id, opts := start(other)
	finish(o, id, d.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE")
	finish(other, "01a2b3c4-0000-7000-8000-000000000000", d.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE")
	finish(other, id, map[string]any{"id": "AA", "rawId": "AA", "response": map[string]any{"attestationObject": "@"}}).
		want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	finish(other, id, d.create(t, opts)).want(t, 201, "") // not spent by the refusals above

	// The same credential id, for another user and for the first one.
	id, opts = start(o)
	finish(o, id, d.create(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE")
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM webauthn_credentials`); err != nil || n != 1 {
		t.Errorf("%d credentials (%v), want 1", n, err)
	}
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
