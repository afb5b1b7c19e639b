package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUserUpdatesProfile changes names, time zone and language with
// register's rules, records user_updated with the changed fields only, and
// records nothing when nothing changed.
func TestUserUpdatesProfile(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	u := register(t, s.client(), "web")
	update := func(args map[string]any) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/update", args, u.auth()...)
	}
	r := update(map[string]any{"firstName": "  Ada ", "locale": "zh-tw"}).want(t, 200, "")
	user := r.obj("user")
	if user["firstName"] != "Ada" || user["locale"] != "zh-TW" || user["lastName"] != "" || user["timezone"] != "UTC" {
		t.Fatalf("user after update: %v", user)
	}
	var fields []string
	var data []byte
	if err := db.GetContext(t.Context(), &data, `SELECT data FROM security_events WHERE owner_id = $1 AND type = 'user_updated'`, u.id); err != nil {
		t.Fatal(err)
	}
	var d struct{ Fields []string }
	_ = json.Unmarshal(data, &d)
	fields = d.Fields
	if !slices.Equal(fields, []string{"firstName", "locale"}) {
		t.Fatalf("user_updated fields %v", fields)
	}
	// The same values, or nothing at all: no change, no event.
	update(map[string]any{"firstName": "Ada"}).want(t, 200, "")
	update(map[string]any{}).want(t, 200, "")
	if n := eventsOf(t, db, u.id, "user_updated"); n != 1 {
		t.Fatalf("%d user_updated events, want 1", n)
	}
	// An empty string counts as absent, as everywhere in the framework:
	// the first name stays.
	r = update(map[string]any{"firstName": " ", "lastName": "Lovelace", "timezone": "Europe/London"}).want(t, 200, "")
	if r.obj("user")["firstName"] != "Ada" || r.obj("user")["lastName"] != "Lovelace" || r.obj("user")["timezone"] != "Europe/London" {
		t.Fatalf("user after the second update: %v", r.obj("user"))
	}
	update(map[string]any{"timezone": "Mars/Olympus"}).want(t, 400, "USER_BAD_REQUEST_INVALID_TIMEZONE")
	update(map[string]any{"timezone": "Local"}).want(t, 400, "USER_BAD_REQUEST_INVALID_TIMEZONE")
	bad := update(map[string]any{"locale": "fr"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := bad.obj("fields")["locale"]; !ok {
		t.Fatalf("no fields.locale: %s", bad.Raw)
	}
	bad = update(map[string]any{"lastName": strings.Repeat("x", 65)}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := bad.obj("fields")["lastName"]; !ok {
		t.Fatalf("no fields.lastName: %s", bad.Raw)
	}
	update(map[string]any{"firstName": "a\x00b"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if n := eventsOf(t, db, u.id, "user_updated"); n != 2 {
		t.Fatalf("%d user_updated events, want 2", n)
	}
	s.client().call(http.MethodPost, "/v1/users/update", map[string]any{"firstName": "x"}).want(t, 401, "")
}

// TestEmailChangeByMail walks the e-mail change: the refusals, an address
// that belongs to an account (a notice, no usable token), a newer request voiding
// the older, the confirmation (the new address verified, every session
// ended, the old address told with a revert link), single use, expiry, and
// the old address kept from registration until the revert token expires.
func TestEmailChangeByMail(t *testing.T) {
	t.Parallel()
	s, smtp, clock := mailClockServer(t)
	db := s.db()
	u := register(t, s.client(), "app")
	other := register(t, s.client(), "app")

	// The current address is refused with a message about the address
	// (not the password), in the caller's language.
	for _, c := range []struct{ locale, want string }{
		{"es", "debe ser distinta de la dirección de correo actual"},
		{"zh-TW", "必須與目前的電子郵件地址不同"},
		{"en", "must differ from the current e-mail address"},
	} {
		u.c.call(http.MethodPost, "/v1/users/update", map[string]any{"locale": c.locale}, u.auth()...).want(t, 200, "")
		r := requestChange(u, strings.ToUpper(u.email)).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if got := r.obj("fields")["newEmail"]; got != c.want {
			t.Errorf("%s: fields.newEmail %q, want %q", c.locale, got, c.want)
		}
	}
	r := requestChange(u, "not an address").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := r.obj("fields")["newEmail"]; !ok {
		t.Fatalf("no fields.newEmail: %s", r.Raw)
	}

	// A taken address: the same answer, a notice to it, no token.
	requestChange(u, " "+strings.ToUpper(other.email)+" ").want(t, 200, "")
	taken := waitMails(t, smtp, other.email, subjectChangeTaken, 1)[0]
	if changeLinkRe.MatchString(taken.Text) || strings.Contains(taken.Text, "http") {
		t.Fatalf("the notice to a taken address carries a link:\n%s", taken.Text)
	}
	waitMails(t, smtp, u.email, subjectChangeNotice, 1)
	// Only a dead row, which counts in the bound.
	var tokens int
	if err := db.GetContext(t.Context(), &tokens, `SELECT count(*) FROM account_tokens WHERE owner_id = $1 AND purpose = 'email_change'
		AND expires_at > created_at`, u.id); err != nil {
		t.Fatal(err)
	}
	if tokens != 0 {
		t.Fatalf("%d usable email_change tokens for a taken address, want 0", tokens)
	}

	// Normalised as at register; a newer request voids the older token.
	newEmail := "moved-" + uniqueEmail()
	requestChange(u, " "+strings.ToUpper(newEmail)+" ").want(t, 200, "")
	first := tokenOf(t, waitMails(t, smtp, newEmail, subjectChangeLink, 1)[0], changeLinkRe)
	second := changeToken(t, smtp, u, newEmail, 2)
	notice := waitMails(t, smtp, u.email, subjectChangeNotice, 3)[2]
	if !strings.Contains(notice.Text, newEmail) || changeLinkRe.MatchString(notice.Text) || strings.Contains(notice.Text, "http") {
		t.Fatalf("the notice to the old address:\n%s", notice.Text)
	}
	confirmChange(s, first).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN")
	confirmChange(s, "zz").want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN")
	confirmChange(s, strings.Repeat("a", 64)).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/confirmemailchange", map[string]any{}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")

	version := tokenVersionOf(t, db, u.id)
	confirmChange(s, second).want(t, 200, "")
	confirmChange(s, second).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN") // single use
	u.read(t).want(t, 401, "")
	refreshWith(s.client(), http.MethodPost, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	if v := tokenVersionOf(t, db, u.id); v != version+1 {
		t.Fatalf("token version %d, want %d", v, version+1)
	}
	for _, row := range sessionsOf(t, db, u.id) {
		if !row.Revoked {
			t.Fatalf("a session outlived the change: %+v", row)
		}
	}
	var data []byte
	if err := db.GetContext(t.Context(), &data, `SELECT data FROM security_events WHERE owner_id = $1 AND type = 'email_changed'`, u.id); err != nil {
		t.Fatal(err)
	}
	var d struct{ OldEmail string }
	if _ = json.Unmarshal(data, &d); d.OldEmail != u.email {
		t.Fatalf("email_changed data %s", data)
	}
	changed := waitMails(t, smtp, u.email, subjectChanged, 1)[0]
	revert := tokenOf(t, changed, revertLinkRe)
	if !strings.Contains(changed.Text, newEmail) || !strings.Contains(changed.Text, "7 days") {
		t.Fatalf("the mail to the old address:\n%s", changed.Text)
	}
	// The old address no longer logs in; the new one does, verified.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	moved := loginAs(t, s, newEmail, strongPassword)
	if user := moved.read(t).want(t, 200, "").obj("user"); user["email"] != newEmail || user["emailVerifiedAt"] == nil {
		t.Fatalf("user after the change: %v", user)
	}

	// An hour later the change token has expired (asked once the hour
	// of the three requests above, which spent the bound, has passed).
	clock.Advance(time.Hour)
	moved = loginAs(t, s, newEmail, strongPassword)
	late := changeToken(t, smtp, moved, "late-"+uniqueEmail(), 1)
	clock.Advance(emailChangeTTL + time.Second)
	confirmChange(s, late).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN")

	// The old address is kept for the revert: nobody registers it while
	// the revert token lives.
	s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
	revertChange(s, "nope").want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN")
	// Seven days later the revert token has expired, and the address is
	// free.
	clock.Advance(7 * 24 * time.Hour)
	revertChange(s, revert).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
}

// emailChangeTTL is the lifetime of an e-mail change token.
const emailChangeTTL = time.Hour

// TestEmailChangeTakeoverIsReverted is the takeover: an attacker holding a
// session of the account moves it to an address of theirs, then to another,
// resets the password there and logs out everywhere. The owner's revert
// link still works, puts the owner's address back and ends the attacker's
// sessions; the attacker's own revert link is void, and the owner can
// reset the password by mail.
func TestEmailChangeTakeoverIsReverted(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	db := s.db()
	owner := register(t, s.client(), "app")
	attacker := loginAs(t, s, owner.email, strongPassword) // a stolen session

	first, second := "taker-1-"+uniqueEmail(), "taker-2-"+uniqueEmail()
	confirmChange(s, changeToken(t, smtp, attacker, first, 1)).want(t, 200, "")
	ownersRevert := tokenOf(t, waitMails(t, smtp, owner.email, subjectChanged, 1)[0], revertLinkRe)

	// The attacker goes on: a second change, a reset, a logout everywhere.
	attacker = loginAs(t, s, first, strongPassword)
	confirmChange(s, changeToken(t, smtp, attacker, second, 1)).want(t, 200, "")
	attackersRevert := tokenOf(t, waitMails(t, smtp, first, subjectChanged, 1)[0], revertLinkRe)
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": second}).want(t, 200, "")
	reset := tokenOf(t, waitMails(t, smtp, second, "Reset your password", 1)[0], resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}).want(t, 200, "")
	attacker = loginAs(t, s, second, newPassword)
	attacker.c.call(http.MethodPost, "/v1/users/logoutall", nil, attacker.auth()...).want(t, 200, "")
	attacker = loginAs(t, s, second, newPassword)
	if n := eventsOf(t, db, owner.id, "email_changed"); n != 2 {
		t.Fatalf("%d email_changed events, want 2", n)
	}

	version := tokenVersionOf(t, db, owner.id)
	revertChange(s, ownersRevert).want(t, 200, "")
	attacker.read(t).want(t, 401, "")
	refreshWith(s.client(), http.MethodPost, attacker.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	if v := tokenVersionOf(t, db, owner.id); v != version+1 {
		t.Fatalf("token version %d, want %d", v, version+1)
	}
	if n := eventsOf(t, db, owner.id, "email_change_reverted"); n != 1 {
		t.Fatalf("%d email_change_reverted events, want 1", n)
	}
	var email string
	var verified bool
	if err := db.QueryRowxContext(t.Context(), `SELECT email, email_verified_at IS NOT NULL FROM users WHERE id = $1`, owner.id).Scan(&email, &verified); err != nil {
		t.Fatal(err)
	}
	if email != owner.email || !verified {
		t.Fatalf("after the revert: %s verified %v, want %s verified", email, verified, owner.email)
	}
	revertChange(s, ownersRevert).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN") // single use
	// The attacker's revert (to their first address) dies with the owner's.
	revertChange(s, attackersRevert).want(t, 400, "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN")
	// The owner takes the password back by mail and logs in.
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": owner.email}).want(t, 200, "")
	reset = tokenOf(t, waitMails(t, smtp, owner.email, "Reset your password", 1)[0], resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": "Owner-Again-2024!"}).want(t, 200, "")
	loginAs(t, s, owner.email, "Owner-Again-2024!")
}

// TestEmailChangeConcurrentConfirms confirms, at once, two users' changes
// to one address: the unique index decides, one wins and the other is
// USER_ALREADY_EXISTS, never a 500; and two confirmations with one token
// succeed once.
func TestEmailChangeConcurrentConfirms(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	target := "contested-" + uniqueEmail()
	a, b := register(t, s.client(), "app"), register(t, s.client(), "app")
	ta := changeToken(t, smtp, a, target, 1)
	tb := changeToken(t, smtp, b, target, 2)
	race := func(tokens ...string) []*apiResponse {
		out := make([]*apiResponse, len(tokens))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, tok := range tokens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out[i] = confirmChange(s, tok)
			}()
		}
		close(start)
		wg.Wait()
		return out
	}
	codes := func(rs []*apiResponse) []string {
		var out []string
		for _, r := range rs {
			code, _ := r.Body["error"].(string)
			out = append(out, http.StatusText(r.Status)+" "+code)
		}
		slices.Sort(out)
		return out
	}
	got := codes(race(ta, tb))
	if want := []string{"Bad Request USER_BAD_REQUEST_USER_ALREADY_EXISTS", "OK "}; !slices.Equal(got, want) {
		t.Fatalf("two users confirming one address: %v, want %v", got, want)
	}
	c := register(t, s.client(), "app")
	tc := changeToken(t, smtp, c, "single-"+uniqueEmail(), 1)
	got = codes(race(tc, tc, tc))
	if want := []string{"Bad Request USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN", "Bad Request USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN", "OK "}; !slices.Equal(got, want) {
		t.Fatalf("one token confirmed three times at once: %v, want %v", got, want)
	}
}

// TestAccountSensitiveActionsNeedRecentAuthentication refuses the e-mail
// change, the deletion and the export to a session authenticated longer
// ago than REAUTH_MAX_AGE, and accepts them after a re-authentication.
func TestAccountSensitiveActionsNeedRecentAuthentication(t *testing.T) {
	t.Parallel()
	s, _, clock := mailClockServer(t)
	u := register(t, s.client(), "app")
	clock.Advance(11 * time.Minute)
	for _, call := range []struct {
		path string
		args map[string]any
	}{
		{"/v1/users/requestemailchange", map[string]any{"newEmail": "later-" + uniqueEmail()}},
		{"/v1/users/export", map[string]any{}},
		{"/v1/users/delete", map[string]any{}},
	} {
		r := u.c.call(http.MethodPost, call.path, call.args, u.auth()...).want(t, 403, "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED")
		if !slices.Equal(strs(r.Body["methods"]), []string{"password"}) {
			t.Fatalf("%s: methods %v", call.path, r.Body["methods"])
		}
	}
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/users/export", map[string]any{}, u.auth()...).want(t, 200, "")
}
