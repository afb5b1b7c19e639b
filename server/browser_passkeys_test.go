package main

import (
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// localhostServer starts a server (the API role, on the clock now) that a
// browser reaches at http://localhost:<port>: WebAuthn needs a domain for
// its relying party (never an address) and a secure context, which
// http://localhost is. The port is taken first, since the origin names
// it. It returns the server and its origin.
func localhostServer(t *testing.T, now func() time.Time, overrides ...string) (*testServer, string) {
	t.Helper()
	env, origin := localhostEnv(t, overrides...)
	return startServerClock(t, env, now, "api"), origin
}

// localhostEnv is the environment of localhostServer, for a test that
// needs the origin before the server starts, and the origin.
func localhostEnv(t *testing.T, overrides ...string) (map[string]string, string) {
	t.Helper()
	port := freePort(t)
	origin := "http://localhost:" + port
	return testEnv(t, append([]string{"PORT=" + port, "PUBLIC_URL=" + origin,
		"WEBAUTHN_RP_ID=localhost", "WEBAUTHN_ORIGINS=" + origin}, overrides...)...), origin
}

// authRow is how the newest row of a session chain authenticated: what
// the browser tests read.
type authRow struct {
	Methods  string  `db:"methods"`
	AAL      int     `db:"aal"`
	Provider *string `db:"provider"`
}

func authOf(t *testing.T, s *testServer, sid string) authRow {
	t.Helper()
	var got authRow
	err := s.db().GetContext(t.Context(), &got, `SELECT array_to_string(auth_methods, ' ') AS methods, aal, provider
		FROM user_sessions WHERE chain_id = $1 ORDER BY created_at DESC LIMIT 1`, sid)
	if err != nil {
		t.Fatalf("session %s: %v", sid, err)
	}
	return got
}

// TestBrowserPasskeys: a passkey added from the demo's panel with
// Chromium's virtual authenticator and renamed; then three logins with
// it: the password and "Use a passkey" as second step (the e-mail field's
// autofill request, waiting meanwhile, aborted by the password's submit),
// the autofill itself, and "Sign in with a passkey" while the autofill
// waits (aborted first); at last its removal in a session older than
// REAUTH_MAX_AGE, confirmed with the passkey in the re-authentication
// dialog.
func TestBrowserPasskeys(t *testing.T) {
	const maxAge = 2 * time.Minute
	clock := &testclock.Offset{}
	s, origin := localhostServer(t, clock.Now, "REAUTH_MAX_AGE="+maxAge.String())
	res := browsertest.Run(t, origin, "passkeys", browsertest.Options{Artifacts: artifactsDir(t), Timeout: 3 * time.Minute, Checkpoint: func(m browsertest.Message) any {
		if m.Name == "age" {
			clock.Advance(maxAge + time.Second)
		}
		return map[string]any{}
	}})["passkeys"]
	userID := res.Str("userId")

	form, added := obj(res.Data, "form"), obj(res.Data, "added")
	if form["button"] != true || form["autocomplete"] != "username webauthn" {
		t.Errorf("the log-in form: %v, want the passkey button and the autofill's autocomplete", form)
	}
	if names := strs(added["names"]); len(names) != 1 || names[0] != "Test laptop" || !strings.Contains(added["meta"].(string), "never used") {
		t.Errorf("the panel after adding: %v", added)
	}
	if creds, _ := res.Data["creds"].([]any); len(creds) != 1 || creds[0].(map[string]any)["rpId"] != "localhost" || creds[0].(map[string]any)["resident"] != true {
		t.Errorf("the authenticator holds %v, want one discoverable credential of localhost", res.Data["creds"])
	}

	second := obj(res.Data, "secondStep")
	if step := obj(second, "step"); step["methods"] != "webauthn" || step["codeField"] != false || step["token"] != nil || second["autofill"] != "AbortError" {
		t.Errorf("the second step: %v, want webauthn only, no code field, no token before it, the autofill aborted", second)
	}
	for name, want := range map[string]string{"secondStep": "pwd hwk", "autofill": "hwk", "button": "hwk"} {
		login := obj(res.Data, name)
		got := authOf(t, s, login["sid"].(string))
		if got.Methods != want || got.AAL != 2 || login["methods"] != want || !strings.Contains(login["how"].(string), "passkey") {
			t.Errorf("login %s: session %+v, the page shows %v; want methods %q at aal 2", name, got, login, want)
		}
	}
	if a := obj(res.Data, "autofill"); a["outcome"] != "in" {
		t.Errorf("the autofill's request ended %v, want in", a["outcome"])
	}
	if b := obj(res.Data, "button"); b["autofill"] != "AbortError" || obj(b, "button")["mediation"] != "optional" || obj(b, "button")["state"] != "resolved" {
		t.Errorf("the button: %v, want the autofill aborted and a modal request answered", b)
	}

	removed := obj(res.Data, "removed")
	if removed["methods"] != "webauthn" || removed["chosen"] != "webauthn" || removed["field"] != false ||
		removed["closed"] != true || !strings.Contains(removed["result"].(string), "Work laptop") || removed["error"] != "" {
		t.Errorf("the removal after re-authenticating: %v", removed)
	}
	db := s.db()
	var left int
	if err := db.GetContext(t.Context(), &left, `SELECT count(*) FROM webauthn_credentials WHERE owner_id = $1`, userID); err != nil || left != 0 {
		t.Errorf("%d passkeys left (%v), want 0", left, err)
	}
	for typ, want := range map[string]int{"passkey_added": 1, "passkey_removed": 1, "reauthenticated": 1} {
		if n := eventsOf(t, db, userID, typ); n != want {
			t.Errorf("%d %s events, want %d", n, typ, want)
		}
	}
	var name string
	if err := db.GetContext(t.Context(), &name, `SELECT data->>'name' FROM security_events
		WHERE owner_id = $1 AND type = 'passkey_removed'`, userID); err != nil || name != "Work laptop" {
		t.Errorf("the removed passkey's name in its event: %q (%v), want the renamed one", name, err)
	}
}
