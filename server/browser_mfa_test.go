package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// totpSource hands out the TOTP codes of one secret, each for a step the
// server still accepts: the current step, or the next one (within the
// skew of 1) when the current one was used already. It never waits for a
// step to begin.
type totpSource struct {
	secret string
	now    func() time.Time
	last   int64
}

// next returns the code of the first step after the last one used that
// is not ahead of the server's window.
func (s *totpSource) next(t testing.TB) string {
	t.Helper()
	current := s.now().Unix() / 30
	step := max(current, s.last+1)
	if step > current+1 {
		t.Fatalf("the scenario wants more TOTP codes than the window of step %d holds", current)
	}
	s.last = step
	return totpAt(t, s.secret, time.Unix(step*30, 0))
}

// wrong returns a six-digit code that no step of the window accepts.
func (s *totpSource) wrong(t testing.TB) string {
	t.Helper()
	now := s.now()
	for _, c := range []string{"000000", "111111", "222222", "333333"} {
		if c != totpAt(t, s.secret, now.Add(-30*time.Second)) && c != totpAt(t, s.secret, now) && c != totpAt(t, s.secret, now.Add(30*time.Second)) {
			return c
		}
	}
	t.Fatal("no wrong code found")
	return ""
}

// TestBrowserTwoFactor: two-factor set up from the demo page (the page's
// QR code decodes to the otpauth URL of the key it shows), the recovery
// codes shown once and downloaded, a login with the password and a code,
// one with a recovery code, and the re-authentication prompt of a
// sensitive change in a session older than REAUTH_MAX_AGE.
func TestBrowserTwoFactor(t *testing.T) {
	const maxAge = 2 * time.Minute
	// The browser runs in real time: one step of the clock forward ages a
	// session past REAUTH_MAX_AGE without a wait.
	clock := &testclock.Offset{}
	env := testEnv(t, "REAUTH_MAX_AGE="+maxAge.String())
	s := startServerClock(t, env, clock.Now, "api")
	adminID := createAdmin(t, env, "desk@example.com")
	var codes *totpSource
	var agedAt time.Time
	res := runBrowser(t, s, "twofactor", browsertest.Options{Timeout: 3 * time.Minute, Checkpoint: func(m browsertest.Message) any {
		if codes == nil {
			codes = &totpSource{secret: m.Str("secret"), now: clock.Now}
		}
		switch m.Name {
		case "admin":
			// Before the reset: the first set of recovery codes is void,
			// the regenerated one works.
			c, email := s.client(), m.Str("email")
			verify(c, "user", firstStep(t, s, "/v1/users/login", email), "recovery_code", m.Str("void")).
				want(t, 400, "USER_BAD_REQUEST_INVALID_RECOVERY_CODE")
			verify(c, "user", firstStep(t, s, "/v1/users/login", email), "recovery_code", m.Str("fresh")).want(t, 201, "")
			return map[string]any{"adminEmail": "desk@example.com", "adminPassword": strongPassword}
		case "age":
			clock.Advance(maxAge + time.Second)
			agedAt = clock.Now()
			return map[string]any{"code": codes.next(t), "wrong": codes.wrong(t)}
		}
		return map[string]any{"code": codes.next(t)}
	}})["twofactor"]
	enrolled := obj(res.Data, "enrolled")
	checkEnrolledPage(t, enrolled, res.Str("email"))
	saved := strs(enrolled["codes"])

	withCode, withRecovery := obj(res.Data, "withCode"), obj(res.Data, "withRecovery")
	for name, login := range map[string]map[string]any{"code": withCode, "recovery code": withRecovery} {
		first := obj(login, "first")
		if first["methods"] != "totp recovery_code" || first["state"] != "out" || first["token"] != nil || first["banner"] != false {
			t.Errorf("login with a %s: before the second step the page showed %v, want the methods and no session", name, first)
		}
		if login["refreshes"] != float64(0) {
			t.Errorf("login with a %s: %v refresh requests, want none", name, login["refreshes"])
		}
	}
	if withCode["remaining"] != float64(10) || withRecovery["remaining"] != float64(9) {
		t.Errorf("recovery codes left after the logins: %v then %v, want 10 then 9", withCode["remaining"], withRecovery["remaining"])
	}
	db := s.db()
	checkSession(t, s, withCode["sid"].(string), "pwd otp", time.Time{})
	checkSession(t, s, withRecovery["sid"].(string), "pwd rcv", agedAt)

	reauth := obj(res.Data, "reauth")
	fresh := strs(reauth["codes"])
	if k := obj(reauth, "kept"); k["method"] != "recovery_code" || k["field"] != true || k["label"] != "Recovery code" {
		t.Errorf("after a wrong code the dialog shows %v, want the recovery code the person chose", k)
	}
	if r := res.Str("reused"); !strings.Contains(r, "Wait for the next code") {
		t.Errorf("the code that turned two-factor on, used again at once: %q, want to wait for the next code", r)
	}
	if reauth["methods"] != "totp recovery_code" || reauth["chosen"] != "totp" || reauth["refused"] == "" ||
		reauth["closed"] != true || len(fresh) != 10 || slices.ContainsFunc(fresh, func(c string) bool { return slices.Contains(saved, c) }) {
		t.Errorf("the re-authentication prompt: %v", reauth)
	}
	// Recovery codes used: the page's login, and the test's own at the
	// "admin" checkpoint.
	for typ, want := range map[string]int{"mfa_enabled": 1, "recovery_code_used": 2, "recovery_codes_regenerated": 1, "reauthenticated": 1} {
		if n := eventsOf(t, db, res.Str("userId"), typ); n != want {
			t.Errorf("%d %s events, want %d", n, typ, want)
		}
	}
	reset := obj(res.Data, "reset")
	before, after := obj(reset, "before"), obj(reset, "after")
	if before["mfa"] != "true" || before["button"] != true || after["mfa"] != "false" || after["button"] != false || after["result"] == "" {
		t.Errorf("the console's reset: before %v, after %v", before, after)
	}
	if ms := time.Duration(reset["userOutMs"].(float64)) * time.Millisecond; ms > pageLogoutLimit {
		t.Errorf("the user's page logged out %v after the reset, want within %v", ms, pageLogoutLimit)
	}
	checkAdminEvent(t, db, res.Str("userId"), "mfa_reset", adminID)
	// After the reset the password alone logs in, and no code is left.
	var left int
	if err := db.GetContext(t.Context(), &left, `SELECT (SELECT count(*) FROM mfa_totp WHERE owner_id = $1)
		+ (SELECT count(*) FROM mfa_recovery_codes WHERE owner_id = $1)`, res.Str("userId")); err != nil || left != 0 {
		t.Errorf("%d TOTP rows and recovery codes left after the reset (%v)", left, err)
	}
	t.Logf("the user's page logged out %v ms after the admin's reset", reset["userOutMs"])
}

// checkEnrolledPage checks what the page showed of the enrolment: a QR
// code that decodes to the otpauth URL of the key shown as text, ten
// recovery codes, downloaded as they were shown and gone once saved, and
// the page's session continued at the new level.
func checkEnrolledPage(t *testing.T, enrolled map[string]any, email string) {
	t.Helper()
	secret, _ := enrolled["secret"].(string)
	qr, _ := enrolled["qr"].(string)
	u, err := url.Parse(qr)
	if err != nil || qr != enrolled["link"] || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("secret") != secret || secret == "" ||
		u.Query().Get("issuer") != "actionkit" || !strings.HasSuffix(u.Path, ":"+email) {
		t.Errorf("the QR code reads %q (%v); the page's otpauth link is %q, its key %q", qr, err, enrolled["link"], secret)
	}
	shown := strs(enrolled["codes"])
	download := obj(enrolled, "download")
	text, _ := download["text"].(string)
	if len(shown) != 10 || download["name"] != "actionkit-recovery-codes.txt" {
		t.Errorf("recovery codes %v, download %v", shown, download["name"])
	}
	for _, c := range shown {
		if !recoveryCodeRe.MatchString(c) || !strings.Contains(text, c) {
			t.Errorf("recovery code %q: malformed, or missing from the download:\n%s", c, text)
		}
	}
	if after := obj(enrolled, "after"); after["shown"] != float64(0) || after["enabled"] != "true" || after["source"] != "mfa" || after["state"] != "in" {
		t.Errorf("after the codes were saved: %v", after)
	}
}

// checkSession checks the methods of the session sid and that its last
// authentication is no older than since.
func checkSession(t *testing.T, s *testServer, sid, methods string, since time.Time) {
	t.Helper()
	var got struct {
		Methods string    `db:"methods"`
		AAL     int       `db:"aal"`
		At      time.Time `db:"authenticated_at"`
	}
	err := s.db().GetContext(t.Context(), &got, `SELECT array_to_string(auth_methods, ' ') AS methods, aal, authenticated_at
		FROM user_sessions WHERE chain_id = $1 ORDER BY created_at DESC LIMIT 1`, sid)
	if err != nil {
		t.Fatalf("session %s: %v", sid, err)
	}
	if !strings.HasPrefix(got.Methods, methods) || got.AAL != 2 || got.At.Before(since) {
		t.Errorf("session %s: methods %q, aal %d, authenticated at %v; want %q..., aal 2, at or after %v", sid, got.Methods, got.AAL, got.At, methods, since)
	}
}

// obj returns the object under key of data.
func obj(data map[string]any, key string) map[string]any {
	m, _ := data[key].(map[string]any)
	return m
}
