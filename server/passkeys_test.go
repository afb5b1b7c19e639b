package main

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/google/uuid"
)

var base64urlRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// TestPasskeyRegistrationAndLogin: a user adds a passkey (a discoverable
// credential, user verification required, no attestation, its existing
// passkeys excluded) and then signs in with it alone: the session is at
// level 2 with the method hwk, and the passkey records its use.
func TestPasskeyRegistrationAndLogin(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)

	opts := o.call("passkeys/registeroptions", nil).want(t, 200, "")
	checkCreationOptions(t, opts.obj("options"))
	if _, err := uuid.Parse(opts.str("challengeId")); err != nil {
		t.Errorf("challengeId %q", opts.str("challengeId"))
	}
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	pk := o.call("passkeys/register", map[string]any{"challengeId": opts.str("challengeId"),
		"credential": d.create(t, opts.obj("options")), "name": "  Laptop "}).want(t, 201, "").obj("passkey")
	id, err := uuid.Parse(pk["id"].(string))
	if err != nil || id.Version() != 7 || pk["name"] != "Laptop" || pk["lastUsedAt"] != nil || pk["backedUp"] != false ||
		pk["createdAt"] == nil || pk["transports"] == nil {
		t.Errorf("passkey %v", pk)
	}
	if eventsOf(t, db, u.id, "passkey_added") != 1 {
		t.Error("no passkey_added event")
	}
	if r := u.read(t).want(t, 200, "").obj("user"); r["mfaEnabled"] != true {
		t.Errorf("a user with a passkey: mfaEnabled %v", r["mfaEnabled"])
	}
	st := o.c.call(http.MethodGet, "/v1/users/mfa/status", nil, o.auth()...).want(t, 200, "").obj("mfa")
	if st["passkeys"] != float64(1) || !slices.Equal(strs(st["methods"]), []string{"webauthn"}) || st["enabled"] != true {
		t.Errorf("status %v", st)
	}
	// With a second factor now, a second registration needs the session
	// at level 2: a re-authentication with the passkey; it excludes the
	// first passkey.
	o.call("passkeys/registeroptions", nil).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	reauthWithPasskey(t, o, d).want(t, 200, "")
	again := o.call("passkeys/registeroptions", nil).want(t, 200, "").obj("options")
	exclude, _ := again["excludeCredentials"].([]any)
	if len(exclude) != 1 || exclude[0].(map[string]any)["id"] != base64.RawURLEncoding.EncodeToString(d.cred.ID) {
		t.Errorf("excludeCredentials %v", again["excludeCredentials"])
	}

	// Passwordless login.
	lo := s.client().call(http.MethodPost, "/v1/users/passkeys/loginoptions", nil).want(t, 200, "").obj("options")
	if lo["allowCredentials"] != nil || lo["userVerification"] != "required" || lo["rpId"] != testRPID || lo["timeout"] != float64(300000) {
		t.Errorf("login options %v", lo)
	}
	r := passkeyLogin(t, s, "user", d).want(t, 201, "")
	if r.obj("user")["id"] != u.id || r.str("token") == "" || setCookieLine(r, "jwt-user-refresh") == "" || r.str("refreshToken") != "" {
		t.Fatalf("passkey login answered %s", r.Raw)
	}
	claims := jwtPayload(r.str("token"))
	if amr := strs(claims["amr"]); !slices.Equal(amr, []string{"hwk"}) {
		t.Errorf("amr %v", amr)
	}
	in := &registered{c: s.client(), id: u.id, token: r.str("token")}
	sessions := in.c.call(http.MethodGet, "/v1/users/sessions", nil, in.auth()...).want(t, 200, "").Body["sessions"].([]any)
	for _, x := range sessions {
		if sess := x.(map[string]any); sess["current"] == true &&
			(!slices.Equal(strs(sess["authMethods"]), []string{"hwk"}) || sess["aal"] != float64(2) || sess["provider"] != nil) {
			t.Errorf("the passkey's session %v, want authMethods [hwk] and aal 2", sess)
		}
	}
	if row := passkeyOf(t, db, pk["id"].(string)); !row.Used {
		t.Error("the passkey's use was not recorded")
	}
	var data string
	if err := db.GetContext(t.Context(), &data, `SELECT data->>'methods' FROM security_events WHERE owner_id = $1 AND type = 'login'`, u.id); err != nil ||
		data != `["hwk"]` {
		t.Errorf("login event methods %q (%v)", data, err)
	}
	// A passkey login never owes another factor, and lists the passkey used.
	list := o.call("passkeys", nil).want(t, 200, "").Body["passkeys"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["lastUsedAt"] == nil {
		t.Errorf("list %v", list)
	}
	// A logged-in user may not log in again.
	s.client().call(http.MethodPost, "/v1/users/passkeys/login", map[string]any{"challengeId": "x", "credential": map[string]any{}},
		in.auth()...).want(t, 401, "UNAUTHORIZED")
}

// checkCreationOptions checks the registration options as the browser
// gets them: the bare PublicKeyCredentialCreationOptions, binary members
// in base64url.
func checkCreationOptions(t testing.TB, o map[string]any) {
	t.Helper()
	rp, _ := o["rp"].(map[string]any)
	user, _ := o["user"].(map[string]any)
	sel, _ := o["authenticatorSelection"].(map[string]any)
	handle, err := base64.RawURLEncoding.DecodeString(str(user["id"]))
	switch {
	case o["publicKey"] != nil:
		t.Errorf("options wrapped in publicKey: %v", o)
	case rp["id"] != testRPID || rp["name"] != "actionkit":
		t.Errorf("rp %v", rp)
	case err != nil || len(handle) != 32 || !base64urlRe.MatchString(str(o["challenge"])):
		t.Errorf("user.id %v (%d bytes, %v), challenge %v", user["id"], len(handle), err, o["challenge"])
	case user["name"] == nil || user["displayName"] == nil:
		t.Errorf("user %v", user)
	case sel["residentKey"] != "required" || sel["requireResidentKey"] != true || sel["userVerification"] != "required":
		t.Errorf("authenticatorSelection %v", sel)
	case o["attestation"] != "none" || o["timeout"] != float64(300000) || o["excludeCredentials"] != nil:
		t.Errorf("attestation %v, timeout %v, excludeCredentials %v", o["attestation"], o["timeout"], o["excludeCredentials"])
	}
}

func str(v any) string { s, _ := v.(string); return s }
