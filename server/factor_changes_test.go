package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"

	"github.com/actionkit/actionkit/internal/smtptest"
)

// TestFirstPasskeyEndsOtherSessions: the first passkey of a user without
// a second factor ends every other session (a stolen one included) as
// confirming TOTP does, while the session that registered it goes on; a
// later passkey ends nothing.
func TestFirstPasskeyEndsOtherSessions(t *testing.T) {
	t.Parallel()
	s, db, u, o := passkeyServer(t)
	stolen := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
		"X-Client", "app").want(t, 201, "")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, o, d, "First")

	s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+stolen.str("token")).want(t, 401, "")
	refreshWith(s.client(), http.MethodPost, stolen.str("refreshToken"), "X-Client", "app").want(t, 401, "")
	u.read(t).want(t, 200, "")
	if n := liveSessions(t, db, u.id); n != 1 {
		t.Errorf("%d live sessions after the first passkey, want 1", n)
	}
	var revoked string
	if err := db.GetContext(t.Context(), &revoked, `SELECT data->>'revoked' FROM security_events
		WHERE owner_id = $1 AND type = 'passkey_added'`, u.id); err != nil || revoked != "1" {
		t.Errorf("passkey_added: revoked %q (%v), want 1", revoked, err)
	}

	other := passkeyLogin(t, s, "user", d).want(t, 201, "")
	reauthWithPasskey(t, o, d).want(t, 200, "")
	addPasskey(t, o, newDevice(virtualwebauthn.AuthenticatorOptions{}), "Second")
	s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+other.str("token")).want(t, 200, "")
}

// TestFactorChangesNeedTheFactor: with a second factor, a session whose
// last use of it is older than REAUTH_MAX_AGE (a stolen one, say) cannot
// change the factors after a password re-authentication: the refusal lists
// only the factors. A re-authentication with a factor allows them, and
// survives a refresh; regenerating the recovery codes mails a notice.
func TestFactorChangesNeedTheFactor(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	env := passkeyEnv(t, "REAUTH_MAX_AGE=2m", "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	s := startServerClock(t, env, clock.Now)
	m := enroll(t, register(t, s.client(), "app"), clock, "user")
	o := userOwner(m.registered)
	o.token = m.token
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	key := addPasskey(t, o, d, "Key") // the confirmation of TOTP used the factor just now

	clock.Advance(2*time.Minute + time.Second)
	o.call("reauthenticate", map[string]any{"password": strongPassword}).want(t, 200, "")
	changes := map[string]map[string]any{
		"mfa/recoverycodes/regenerate": nil,
		"mfa/totp/disable":             {"code": m.codes[0]},
		"mfa/totp/enroll":              nil,
		"passkeys/registeroptions":     nil,
		"passkeys/register":            {"challengeId": "x", "credential": map[string]any{"id": "x"}},
		"passkeys/remove":              {"passkeyId": key["id"]},
	}
	for path, args := range changes {
		r := o.call(path, args).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
		if got := strs(r.Body["methods"]); !slices.Equal(got, []string{"totp", "recovery_code", "webauthn"}) {
			t.Errorf("%s: methods %v, want the factors only", path, got)
		}
	}
	o.call("passkeys/rename", map[string]any{"passkeyId": key["id"], "name": "Renamed"}).want(t, 200, "") // not a factor change

	reauthWithPasskey(t, o, d).want(t, 200, "")
	r := refreshWith(s.client(), http.MethodPost, m.refresh, "X-Client", "app").want(t, 200, "")
	o.token = r.str("token")
	codes := strs(o.call("mfa/recoverycodes/regenerate", nil).want(t, 200, "").Body["recoveryCodes"])
	if len(codes) != 10 {
		t.Fatalf("regenerated %d codes", len(codes))
	}
	waitMails(t, smtp, m.email, "New recovery codes were made", 1)

	// A login with the second factor counts as its use.
	clock.Advance(30 * time.Second)
	v := verify(s.client(), "user", firstStep(t, s, "/v1/users/login", m.email), "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
	fresh := &owner{c: s.client(), kind: "user", id: m.id, token: v.str("token")}
	fresh.call("mfa/recoverycodes/regenerate", nil).want(t, 200, "")
}
