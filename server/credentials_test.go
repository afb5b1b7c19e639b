package main

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/smtptest"
)

const newPassword = "Brand-New-Password-77"

// mailServer starts an SMTP server and a test server sending to it, with
// retries at once.
func mailServer(t *testing.T, overrides ...string) (*testServer, *smtptest.Server) {
	t.Helper()
	smtp := smtptest.Start(t)
	env := testEnv(t, append([]string{"SMTP_URL=" + smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s"}, overrides...)...)
	return startServer(t, env), smtp
}

var (
	resetLinkRe  = regexp.MustCompile(`https://app\.test/demo#reset=([0-9a-f]{64})`)
	verifyLinkRe = regexp.MustCompile(`https://app\.test/demo#verify=([0-9a-f]{64})`)
)

// tokenOf returns the token of the link matched by re in m's text part,
// checking that the HTML part carries the same link.
func tokenOf(t *testing.T, m smtptest.Message, re *regexp.Regexp) string {
	t.Helper()
	found := re.FindStringSubmatch(m.Text)
	if found == nil {
		t.Fatalf("no link in the text part:\n%s", m.Text)
	}
	if !strings.Contains(m.HTML, `href="`+found[0]+`"`) {
		t.Fatalf("the HTML part lacks the link %s:\n%s", found[0], m.HTML)
	}
	return found[1]
}

// mailsOf returns the accepted mails to addr whose subject is subject.
func mailsOf(smtp *smtptest.Server, addr, subject string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range smtp.To(addr) {
		if m.Subject == subject {
			out = append(out, m)
		}
	}
	return out
}

func waitMails(t *testing.T, smtp *smtptest.Server, addr, subject string, n int) []smtptest.Message {
	t.Helper()
	poll.Until(t, 20*time.Second, "mails "+subject, func() bool { return len(mailsOf(smtp, addr, subject)) >= n })
	return mailsOf(smtp, addr, subject)
}

// TestPasswordResetByMail runs a reset end to end over SMTP: the mail is
// retried past refusals and written in the account's language, the reset
// answers 200 without logging in, every earlier token is refused after
// it, and no secret reaches the log. The engine's TestResetPassword checks
// what a reset changes.
func TestPasswordResetByMail(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	c := s.client()
	email := uniqueEmail()
	r := c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword, "locale": "es"}, "X-Client", "app").want(t, 201, "")
	u := &registered{c: c, email: email, id: r.obj("user")["id"].(string), token: r.str("token"), refresh: r.str("refreshToken")}
	other := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": strongPassword}, "X-Client", "app").want(t, 201, "")
	waitMails(t, smtp, email, "Confirma tu dirección de correo electrónico", 1) // sent at register

	// The mail server refuses twice: the job retries and delivers once.
	smtp.RefuseNext(2)
	before := smtp.Attempts()
	res := s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": strings.ToUpper(email)}).want(t, 200, "")
	if res.Raw != `{"status":200,"success":true}` {
		t.Fatalf("answer %s", res.Raw)
	}
	mails := waitMails(t, smtp, email, "Restablece tu contraseña", 1)
	if got := smtp.Attempts() - before; got != 3 {
		t.Errorf("%d delivery attempts, want 3 (two refused)", got)
	}
	m := mails[0]
	if m.Header.Get("Content-Language") != "es" || !strings.Contains(m.Text, "30 minutos") || !strings.Contains(m.Header.Get("From"), "no-reply@localhost") {
		t.Errorf("mail headers or text: %v\n%s", m.Header, m.Text)
	}
	token := tokenOf(t, m, resetLinkRe)

	// Bad tokens: the purpose's 400 code (the engine's TestResetPassword
	// checks that they change nothing, and what a reset changes).
	for _, bad := range []string{"abc", strings.ToUpper(token), strings.Repeat("0", 64)} {
		s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": bad, "password": newPassword}).want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
	}
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"password": newPassword}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": "weak"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")

	res = s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": newPassword}).want(t, 200, "")
	if res.Body["token"] != nil || res.Body["user"] != nil {
		t.Fatalf("reset logs in: %s", res.Raw)
	}
	u.read(t).want(t, 401, "")
	s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+other.str("token")).want(t, 401, "")
	s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": other.str("refreshToken")}, "X-Client", "app").want(t, 401, "")
	// Single use.
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": "Another-Password-88"}).want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": strongPassword}).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": newPassword}).want(t, 201, "")

	// The raw token and passwords never reach the log.
	logs := s.logs.String()
	for _, secret := range []string{token, newPassword, strongPassword} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds a secret %q", secret[:8])
		}
	}
}

// TestResetRequestRevealsNothing compares the answers and times of reset
// requests for an address with an account and one without: same body,
// medians within 30% over 20 requests each (interleaved ABBA, after a
// warm-up). It does not run in parallel with the other tests of the
// package, and on a machine shared with other work a round may be noisy:
// it passes when one of five rounds is within 30%. Work that differs by
// path (a synchronous lookup and token for known addresses only, which
// doubles a request's time) shifts every round, and fails it.
func TestResetRequestRevealsNothing(t *testing.T) {
	s, smtp := mailServer(t)
	u := register(t, s.client(), "web")
	unknown := uniqueEmail()
	c := s.client()
	for round := 1; ; round++ {
		mk, mm := resetTimings(t, c, u.email, unknown)
		ratio := float64(mk) / float64(mm)
		t.Logf("round %d: median known %v, unknown %v, ratio %.2f", round, mk, mm, ratio)
		if ratio >= 1/1.3 && ratio <= 1.3 {
			break
		}
		if round == 5 {
			t.Fatalf("medians differ by more than 30%% in 5 rounds: last known %v, unknown %v", mk, mm)
		}
	}
	waitMails(t, smtp, u.email, "Reset your password", 3)
	if got := len(smtp.To(unknown)); got != 0 {
		t.Errorf("%d mails to an address without an account", got)
	}
}

// resetTimings returns the median times of 20 reset requests for known and
// 20 for unknown, interleaved.
func resetTimings(t *testing.T, c *client, known, unknown string) (time.Duration, time.Duration) {
	t.Helper()
	var tk, tu []time.Duration
	for i := range 22 {
		// Alternate which address goes first (ABBA), so that neither is
		// always the one sharing the machine with the previous pair's jobs.
		order := []string{known, unknown}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, addr := range order {
			start := time.Now()
			res := c.call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": addr})
			d := time.Since(start)
			res.want(t, 200, "")
			if res.Raw != `{"status":200,"success":true}` {
				t.Fatalf("%s: answer %s", addr, res.Raw)
			}
			if i < 2 { // warm-up
				continue
			}
			if addr == unknown {
				tu = append(tu, d)
			} else {
				tk = append(tk, d)
			}
		}
	}
	return median(tk), median(tu)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestChangePassword: the HTTP side of a password change (the engine's
// TestChangePassword checks what it changes): the refusals' 400s and 401,
// the caller's new tokens and cookie, the other session's tokens and
// socket ended at once, the caller's previous refresh token a replay.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	s, _ := mailServer(t)
	u := register(t, s.client(), "web") // web: the refresh token is in the cookie jar
	other := s.client()
	o := other.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "app").want(t, 201, "")
	otherUser := &registered{c: other, email: u.email, id: u.id, token: o.str("token"), refresh: o.str("refreshToken")}
	sock := feedClient(t, s, otherUser)
	oldCookie := setCookieLine(u.res, "jwt-user-refresh")

	change := func(current, next string) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": current, "newPassword": next}, u.auth()...)
	}
	change("Wrong-Password-000", newPassword).want(t, 400, "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	same := change(strongPassword, strongPassword).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	if _, ok := same.obj("fields")["newPassword"]; !ok {
		t.Fatalf("same password: %s", same.Raw)
	}
	change(strongPassword, "weak").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	s.client().call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword}).want(t, 401, "")

	res := change(strongPassword, newPassword).want(t, 200, "")
	if res.str("token") == "" || res.obj("user")["id"] != u.id || setCookieLine(res, "jwt-user-refresh") == "" {
		t.Fatalf("answer: %s", res.Raw)
	}
	// The other session's access token, refresh token and socket end at once.
	if _, err := sock.WaitFor(waitCtx(t), "disconnect", nil); err != nil {
		t.Fatalf("the other session's socket stayed connected: %v", err)
	}
	otherUser.read(t).want(t, 401, "")
	other.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": otherUser.refresh}, "X-Client", "app").want(t, 401, "")
	u.read(t).want(t, 401, "") // the caller's old access token too
	// The caller goes on with its new tokens.
	u.token = res.str("token")
	u.read(t).want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/users/refresh", nil).want(t, 200, "")
	// The caller's previous refresh token counts as rotated: a replay.
	oldRaw := strings.TrimPrefix(strings.SplitN(oldCookie, ";", 2)[0], "jwt-user-refresh=")
	s.client().call(http.MethodPost, "/v1/users/refresh", nil, "Cookie", "jwt-user-refresh="+oldRaw).want(t, 401, "")
	if !strings.Contains(s.logs.String(), "refresh token replayed") {
		t.Error("the caller's previous refresh token was not treated as a replay")
	}
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": newPassword}).want(t, 201, "")
}

func TestAdminChangePassword(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	email := uniqueEmail()
	createAdmin(t, env, email)
	s := startServer(t, env)
	a, _ := adminLogin(t, s, email, "app")
	b, _ := adminLogin(t, s, email, "app")
	a.c.call(http.MethodPost, "/v1/admins/changepassword", map[string]any{"currentPassword": "Wrong-Password-000", "newPassword": newPassword}, a.auth()...).
		want(t, 400, "ADMIN_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	res := a.c.call(http.MethodPost, "/v1/admins/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword, "refreshToken": a.refresh}, a.auth()...).want(t, 200, "")
	if res.obj("admin")["id"] != a.id || res.str("refreshToken") == "" {
		t.Fatalf("answer %s", res.Raw)
	}
	b.c.call(http.MethodGet, "/v1/admins/read", nil, b.auth()...).want(t, 401, "")
	a.c.call(http.MethodGet, "/v1/admins/read", nil, "Authorization", "jwt-admin "+res.str("token")).want(t, 200, "")
	if live, _, _ := adminSessionsOf(t, s, a.id); live != 1 {
		t.Fatalf("%d live admin sessions, want 1", live)
	}
	s.client().call(http.MethodPost, "/v1/admins/requestpasswordreset", map[string]any{"email": email}).want(t, 404, "")
}

func TestEmailVerification(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t, "REQUIRE_VERIFIED_EMAIL=true")
	c := s.client()
	email := uniqueEmail()
	r := c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword, "locale": "zh-TW"}).want(t, 201, "")
	u := &registered{c: c, email: email, id: r.obj("user")["id"].(string), token: r.str("token")}
	if v, ok := r.obj("user")["emailVerifiedAt"]; !ok || v != nil {
		t.Fatalf("emailVerifiedAt of a new user: %v (present %v)", v, ok)
	}
	const subject = "確認您的電子郵件地址"
	first := tokenOf(t, waitMails(t, smtp, email, subject, 1)[0], verifyLinkRe)
	if m := mailsOf(smtp, email, subject)[0]; m.Header.Get("Content-Language") != "zh-TW" || !strings.Contains(m.Text, "48 小時") {
		t.Errorf("verification mail: %v\n%s", m.Header, m.Text)
	}
	// Unverified: login refused after the credentials are checked.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": "Wrong-Password-000"}).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": strongPassword}).want(t, 400, "USER_BAD_REQUEST_EMAIL_NOT_VERIFIED")
	// A re-send (the engine's tests check its bound) voids the first token.
	c.call(http.MethodPost, "/v1/users/requestemailverification", nil, u.auth()...).want(t, 200, "")
	mails := waitMails(t, smtp, email, subject, 2)
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": first}).want(t, 400, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": "xyz"}).want(t, 400, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	last := tokenOf(t, mails[1], verifyLinkRe)
	res := s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": last}).want(t, 200, "")
	if res.obj("user")["id"] != u.id || res.obj("user")["emailVerifiedAt"] == nil {
		t.Fatalf("answer %s", res.Raw)
	}
	s.client().call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": last}).want(t, 400, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": strongPassword}).want(t, 201, "")
	if u.read(t).want(t, 200, "").obj("user")["emailVerifiedAt"] == nil {
		t.Fatal("read does not show the verification")
	}
}

func TestMailWithoutSMTP(t *testing.T) {
	t.Parallel()
	t.Run("development logs the mail with its link", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, testEnv(t, "PUBLIC_URL=https://app.test"))
		u := register(t, s.client(), "web")
		poll.Until(t, 20*time.Second, "the logged verification mail", func() bool {
			return verifyLinkRe.MatchString(s.logs.String()) && strings.Contains(s.logs.String(), u.email)
		})
	})
	t.Run("production answers 503 and warns", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, testEnv(t, "APP_ENV=production", "PASSWORD_HASH_MEMORY_KIB=19456", "PASSWORD_HASH_ITERATIONS=2"))
		if !strings.Contains(s.logs.String(), "SMTP_URL is not set") {
			t.Error("no start-up warning")
		}
		s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": uniqueEmail()}).want(t, 503, "SERVICE_UNAVAILABLE")
		u := register(t, s.client(), "app")
		u.c.call(http.MethodPost, "/v1/users/requestemailverification", nil, u.auth()...).want(t, 503, "SERVICE_UNAVAILABLE")
		requestChange(u, uniqueEmail()).want(t, 503, "SERVICE_UNAVAILABLE")
	})
}
