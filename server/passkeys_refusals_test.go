package main

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
)

// TestPasskeyLoginRefusals: a forged, replayed, mismatched-origin,
// wrong-RP, expired-challenge, user-not-verified or unknown-credential
// assertion gets one code, changes nothing, and spends its challenge (the
// genuine answer to it is refused afterwards). A challenge id never issued
// gets its own code; a credential that is not the JSON of one is an
// invalid argument and spends nothing.
func TestPasskeyLoginRefusals(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, passkeyEnv(t), clock.Now, "api")
	db := s.db()
	u := register(t, s.client(), "web")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	pk := addPasskey(t, userOwner(u), d, "")
	if pk["name"] != "Passkey" {
		t.Errorf("default name %v", pk["name"])
	}
	sessionsBefore := liveSessions(t, db, u.id)

	c := s.client()
	options := func() (string, map[string]any) {
		r := c.call(http.MethodPost, "/v1/users/passkeys/loginoptions", nil).want(t, 200, "")
		return r.str("challengeId"), r.obj("options")
	}
	login := func(id string, cred any) *apiResponse {
		return c.call(http.MethodPost, "/v1/users/passkeys/login", map[string]any{"challengeId": id, "credential": cred})
	}
	variant := func(change func(d *device)) *device {
		v := *d
		change(&v)
		return &v
	}
	forged := func(opts map[string]any) map[string]any {
		cred := d.get(t, opts)
		resp := cred["response"].(map[string]any)
		sig, _ := base64.RawURLEncoding.DecodeString(resp["signature"].(string))
		sig[len(sig)-1] ^= 1
		resp["signature"] = base64.RawURLEncoding.EncodeToString(sig)
		return cred
	}
	cases := []struct {
		name   string
		answer func(opts map[string]any) map[string]any
	}{
		{"forged signature", forged},
		{"wrong origin", variant(func(v *device) { v.rp.Origin = "https://evil.example.test" }).get2(t)},
		{"wrong relying party", variant(func(v *device) { v.rp.ID = "evil.test" }).get2(t)},
		{"no user verification", variant(func(v *device) { v.auth.Options.UserNotVerified = true }).get2(t)},
		{"another user handle", variant(func(v *device) { v.auth.Options.UserHandle = make([]byte, 32) }).get2(t)},
		{"no user handle", variant(func(v *device) { v.auth.Options.UserHandle = nil }).get2(t)},
		{"unknown credential", newDevice(virtualwebauthn.AuthenticatorOptions{UserHandle: d.auth.Options.UserHandle}).get2(t)},
		{"another key under the credential's id", variant(func(v *device) {
			v.cred = newCredential()
			v.cred.ID = d.cred.ID
		}).get2(t)},
	}
	for _, tc := range cases {
		id, opts := options()
		login(id, tc.answer(opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
		login(id, d.get(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS") // spent
		if n := liveSessions(t, db, u.id); n != sessionsBefore {
			t.Fatalf("%s: %d sessions, want %d", tc.name, n, sessionsBefore)
		}
		if row := passkeyOf(t, db, pk["id"].(string)); row.Used {
			t.Fatalf("%s: the passkey's use was recorded", tc.name)
		}
	}
	// Replayed: a genuine assertion, accepted once.
	id, opts := options()
	cred := d.get(t, opts)
	login(id, cred).want(t, 201, "")
	login(id, cred).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
	// Expired: the challenge lives 5 minutes, on the server's clock.
	id, opts = options()
	clock.Advance(5*time.Minute + time.Second)
	login(id, d.get(t, opts)).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
	// A challenge id never issued for a login.
	login("01a2b3c4-0000-7000-8000-000000000000", cred).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE")
	login("not-an-id", cred).want(t, 400, "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE")
	if n := liveSessions(t, db, u.id); n != sessionsBefore+1 {
		t.Errorf("%d sessions, want %d (the one genuine login)", n, sessionsBefore+1)
	}

	// Malformed: refused before the challenge is looked at.
	id, opts = options()
	malformed := []any{
		"{}", []any{1}, map[string]any{"id": "@@@", "rawId": "AA", "type": "public-key", "response": map[string]any{}},
		map[string]any{"id": "AA", "rawId": "not base64!", "type": "public-key"},
		map[string]any{"id": "AA", "rawId": "AA", "response": map[string]any{"signature": "a+b/c=="}},
		map[string]any{"id": "AA", "rawId": "AA", "response": "x"},
		map[string]any{"id": 5},
	}
	for _, m := range malformed {
		r := login(id, m).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if f, _ := r.obj("fields")["credential"].(string); f == "" {
			t.Errorf("%v: fields %v", m, r.Body["fields"])
		}
	}
	c.call(http.MethodPost, "/v1/users/passkeys/login", `{"challengeId":"`+id+`","credential":{"id":`, "Content-Type", "application/json").
		want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	login(id, d.get(t, opts)).want(t, 201, "")
}

// get2 is get as a function of the options, for tables of answers.
func (d *device) get2(t testing.TB) func(map[string]any) map[string]any {
	return func(opts map[string]any) map[string]any { return d.get(t, opts) }
}

// TestPasskeyOfAGoneOwner: a passkey whose account row is gone signs
// nobody in, with the one code (never a 500).
func TestPasskeyOfAGoneOwner(t *testing.T) {
	t.Parallel()
	s := startServer(t, passkeyEnv(t), "api")
	u := register(t, s.client(), "web")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(u), d, "")
	sqlExec(t, s.db(), `DELETE FROM users WHERE id = $1`, u.id)
	passkeyLogin(t, s, "user", d).want(t, 400, "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS")
}
