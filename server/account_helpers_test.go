package main

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// The subjects (en) and links of the mails of an e-mail change.
const (
	subjectChangeLink    = "Confirm your new e-mail address"
	subjectChangeNotice  = "A change of your e-mail address was requested"
	subjectChangeTaken   = "Someone tried to use your e-mail address"
	subjectChanged       = "The e-mail address of your account was changed"
	subjectAccountDelete = "Your account was deleted"
)

var (
	changeLinkRe = regexp.MustCompile(`https://app\.test/demo#email-change=([0-9a-f]{64})`)
	revertLinkRe = regexp.MustCompile(`https://app\.test/demo#email-revert=([0-9a-f]{64})`)
)

// mailClockServer is mailServer on a test clock.
func mailClockServer(t *testing.T, overrides ...string) (*testServer, *smtptest.Server, *testclock.Clock) {
	t.Helper()
	smtp := smtptest.Start(t)
	clock := newTestClock()
	env := testEnv(t, append([]string{"SMTP_URL=" + smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s"}, overrides...)...)
	return startServerClock(t, env, clock.Now), smtp, clock
}

// loginAs logs in to email with the password from a new client ("app"), as
// one more session of the account.
func loginAs(t testing.TB, s *testServer, email, password string) *registered {
	t.Helper()
	c := s.client()
	r := c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": password}, "X-Client", "app").want(t, 201, "")
	return &registered{c: c, email: email, id: r.obj("user")["id"].(string), token: r.str("token"), refresh: r.str("refreshToken"), res: r}
}

// requestChange asks, as u, to move u's account to to.
func requestChange(u *registered, to string) *apiResponse {
	return u.c.call(http.MethodPost, "/v1/users/requestemailchange", map[string]any{"newEmail": to}, u.auth()...)
}

// changeToken asks, as u, to move u's account to to and returns the token
// of the n-th confirmation link mailed there.
func changeToken(t *testing.T, smtp *smtptest.Server, u *registered, to string, n int) string {
	t.Helper()
	requestChange(u, to).want(t, 200, "")
	return tokenOf(t, waitMails(t, smtp, to, subjectChangeLink, n)[n-1], changeLinkRe)
}

// confirmChange and revertChange present a token.
func confirmChange(s *testServer, token string) *apiResponse {
	return s.client().call(http.MethodPost, "/v1/users/confirmemailchange", map[string]any{"token": token})
}

func revertChange(s *testServer, token string) *apiResponse {
	return s.client().call(http.MethodPost, "/v1/users/revertemailchange", map[string]any{"token": token})
}
