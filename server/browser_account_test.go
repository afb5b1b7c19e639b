package main

import (
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// pageLogoutLimit bounds how long a page whose session another browser
// ended takes to show its logged-out form: the socket's disconnect (within
// 2 s), its refused reconnection and the refused refresh.
const pageLogoutLimit = 5 * time.Second

// browserMailServer starts an SMTP server and a test server sending to it
// whose mail links point at the server itself, as a browser reaches it.
func browserMailServer(t *testing.T) (*testServer, *smtptest.Server, string) {
	t.Helper()
	smtp := smtptest.Start(t)
	// The links must point at the server as the browser reaches it, whose
	// port is known only once it listens: take a free port first.
	env := testEnv(t, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s")
	port := freePort(t)
	env["PORT"] = port
	env["PUBLIC_URL"] = "http://127.0.0.1:" + port
	s := startServer(t, env)
	return s, smtp, env["PUBLIC_URL"]
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// linkIn returns the first link of the mail's text matching re.
func linkIn(t *testing.T, m smtptest.Message, re *regexp.Regexp) string {
	t.Helper()
	link := re.FindString(m.Text)
	if link == "" {
		t.Fatalf("no link in the mail:\n%s", m.Text)
	}
	return link
}

func TestBrowserForgotPassword(t *testing.T) {
	s, smtp, base := browserMailServer(t)
	resetRe := regexp.MustCompile(regexp.QuoteMeta(base) + `/demo#reset=[0-9a-f]{64}`)
	res := runBrowser(t, s, "forgot", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		mails := waitMails(t, smtp, m.Str("email"), "Reset your password", 1)
		return map[string]any{"link": linkIn(t, mails[0], resetRe)}
	}})["forgot"]
	reset, _ := res.Data["reset"].(map[string]any)
	reused, _ := res.Data["reused"].(map[string]any)
	if res.Str("hashLeft") != "" || res.Str("state") != "in" || reset["state"] != "reset" ||
		reused["code"] != "USER_BAD_REQUEST_INVALID_RESET_TOKEN" || !strings.HasPrefix(res.Str("weak"), "Password must be") {
		t.Errorf("forgot password in the page: %v", res.Data)
	}
	// The weak password's reason shows once, under its field, without the
	// API's field name or the request id.
	if weak, field := res.Str("weak"), obj(res.Data, "weakField"); strings.Count(weak, "must be") != 1 || strings.Contains(weak, "password:") ||
		strings.Contains(weak, "request") || field["invalid"] != "true" || !strings.Contains(field["describedBy"].(string), "reset-password-field-error") || field["cardError"] != "" {
		t.Errorf("the weak password's error: %q, field %v", weak, field)
	}
	c := s.client()
	c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": res.Str("email"), "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": res.Str("email"), "password": newPassword}).want(t, 201, "")
	t.Logf("the page's confirmation: %q", res.Str("confirmation"))
}

func TestBrowserChangePasswordLogsOtherDeviceOut(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "changepassword", browsertest.Options{})["changepassword"]
	if res.Str("state") != "in" || res.Str("source") != "changepassword" || res.Str("sid") != res.Str("sidBefore") ||
		res.Str("read") != res.Str("userId") || res.Str("wrong") != "Current password is wrong" {
		t.Errorf("the changing page: %v", res.Data)
	}
	if ms := time.Duration(res.Int("otherOutMs")) * time.Millisecond; ms > pageLogoutLimit {
		t.Errorf("the other device's page showed the login form after %v, want within %v", ms, pageLogoutLimit)
	}
	t.Logf("the other device's page logged out %d ms after the change (banner %q)", res.Int("otherOutMs"), res.Str("otherBanner"))
	if n := eventsOf(t, s.db(), res.Str("userId"), "password_changed"); n != 1 {
		t.Errorf("%d password_changed events, want 1", n)
	}
}

func TestBrowserVerifyEmail(t *testing.T) {
	s, smtp, base := browserMailServer(t)
	verifyRe := regexp.MustCompile(regexp.QuoteMeta(base) + `/demo#verify=[0-9a-f]{64}`)
	res := runBrowser(t, s, "verify", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		mails := waitMails(t, smtp, m.Str("email"), "Confirm your e-mail address", 1)
		return map[string]any{"link": linkIn(t, mails[0], verifyRe)}
	}})["verify"]
	verified, _ := res.Data["verified"].(map[string]any)
	bad, _ := res.Data["bad"].(map[string]any)
	if res.Str("before") != "false" || verified["state"] != "verified" || verified["hashLeft"] != "" ||
		bad["code"] != "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN" {
		t.Errorf("verification in the page: %v", res.Data)
	}
	r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": res.Str("email"), "password": strongPassword}).want(t, 201, "")
	if r.obj("user")["emailVerifiedAt"] == nil {
		t.Errorf("the API does not show the address verified: %s", r.Raw)
	}
}

func TestBrowserWhereYoureLoggedIn(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "devices", browsertest.Options{})["devices"]
	listed, _ := res.Data["listed"].([]any)
	current := 0
	for _, l := range listed {
		if l.(map[string]any)["current"] == true {
			current++
		}
	}
	if len(listed) != 2 || current != 1 || res.Str("state") != "in" {
		t.Errorf("the panel: %v", res.Data)
	}
	if ms := time.Duration(res.Int("otherOutMs")) * time.Millisecond; ms > pageLogoutLimit {
		t.Errorf("the other device's page showed the login form after %v, want within %v", ms, pageLogoutLimit)
	}
	t.Logf("the other device's page logged out %d ms after \"Log out this device\"", res.Int("otherOutMs"))
	if n := eventsOf(t, s.db(), res.Str("userId"), "session_revoked"); n != 1 {
		t.Errorf("%d session_revoked events, want 1", n)
	}
}

// TestBrowserAdminConsole: the admin console finds a user and changes it,
// each change that ends the user's sessions logs the user's page out, and
// a sensitive change in an admin session older than REAUTH_MAX_AGE asks
// for the admin's password before it goes ahead.
func TestBrowserAdminConsole(t *testing.T) {
	const maxAge = 2 * time.Minute
	clock := &testclock.Offset{}
	env := testEnv(t, "REAUTH_MAX_AGE="+maxAge.String())
	s := startServerClock(t, env, clock.Now, "api")
	adminID := createAdmin(t, env, "console@example.com")
	res := runBrowser(t, s, "admin", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		if m.Name == "age" {
			clock.Advance(maxAge + time.Second)
		}
		return map[string]any{"adminEmail": "console@example.com", "adminPassword": strongPassword}
	}})["admin"]
	if res.Str("found") != "1" || res.Str("sessions") != "1" || res.Str("status") != "active" || res.Str("userState") != "in" {
		t.Errorf("the console: %v", res.Data)
	}
	if r := obj(res.Data, "reauth"); r["methods"] != "password" || r["refused"] == "" || r["closed"] != true {
		t.Errorf("the console's re-authentication prompt: %v", r)
	}
	// Deactivate asks in the page first: one click sends nothing.
	if c := obj(res.Data, "confirm"); c["sentAfterClick"] != float64(0) || c["status"] != "active" || c["userState"] != "in" ||
		c["cancelled"] != true || c["sentAfterConfirm"] != float64(1) || c["yes"] != "Deactivate" ||
		!strings.Contains(c["text"].(string), res.Str("email")) {
		t.Errorf("the console's confirmation: %v", c)
	}
	first, _ := res.Data["firstEvents"].([]any)
	last, _ := res.Data["lastEvents"].([]any)
	if len(first) != 1 || first[0] != "register" || len(last) == 0 || last[0] != "account_restored" {
		t.Errorf("the console's events: first %v, last %v", first, last)
	}
	timings, _ := res.Data["timings"].(map[string]any)
	for _, change := range []string{"deactivate", "revokesessions", "delete"} {
		ms, _ := timings[change].(float64)
		if ms <= 0 || time.Duration(ms)*time.Millisecond > pageLogoutLimit {
			t.Errorf("%s: the user's page logged out after %v ms, want within %v", change, ms, pageLogoutLimit)
		}
	}
	t.Logf("the user's page logged out after the admin's action (ms): %v", timings)
	db := s.db()
	for _, typ := range []string{"account_deactivated", "account_activated", "logoutall", "account_deleted", "account_restored"} {
		checkAdminEvent(t, db, res.Str("userId"), typ, adminID)
	}
}
