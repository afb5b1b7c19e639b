package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/faulttest"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/internal/syncbuf"
)

// TestSecondFactorSlowDown: wrong codes count as failures of the account
// in the per-account slow-down, keyed as logins are, so a client that
// keeps guessing is slowed at the second step and at the first; another
// client is not. A slowed attempt is not evaluated or counted.
func TestSecondFactorSlowDown(t *testing.T) {
	t.Parallel()
	s, clock, m := mfaServer(t, "TRUST_PROXY=true", "MFA_CHALLENGE_MAX_ATTEMPTS=20")
	guesser, other := xff("203.0.113.71"), xff("203.0.113.72")
	token := firstStep(t, s, "/v1/users/login", m.email, guesser...)
	for range 5 {
		verify(s.client(), "user", token, "totp", "000000", guesser...).want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	}
	clock.Advance(30 * time.Second)
	r := verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now()), guesser...).want(t, 429, "TOO_MANY_REQUESTS")
	if n := retryAfter(t, r); n != int(testFirstDelay/time.Second) {
		t.Errorf("Retry-After %d, want the first delay", n)
	}
	if attempts, used := challengeOf(t, s, token); attempts != 5 || used {
		t.Errorf("a slowed attempt was evaluated: attempts %d, used %v", attempts, used)
	}
	login(s.client(), m.email, strongPassword, guesser[1]).want(t, 429, "TOO_MANY_REQUESTS")
	theirs := firstStep(t, s, "/v1/users/login", m.email, other...)
	verify(s.client(), "user", theirs, "totp", totpAt(t, m.secret, clock.Now()), other...).want(t, 201, "")
	// Slowed, not locked out: once the delay (on the real clock) has
	// passed, the guessing client may try again.
	clock.Advance(30 * time.Second)
	code := totpAt(t, m.secret, clock.Now())
	untilNotSlowed(t, 10*time.Second, func() *apiResponse {
		return verify(s.client(), "user", token, "totp", code, guesser...)
	}).want(t, 201, "")
}

// TestDisableTOTPSlowDown: wrong codes given to turn TOTP off count in
// the per-account slow-down and are recorded, as at the second step; a
// slowed attempt is not evaluated, and TOTP stays on.
func TestDisableTOTPSlowDown(t *testing.T) {
	t.Parallel()
	s, clock, m := mfaServer(t, "TRUST_PROXY=true")
	guesser := xff("203.0.113.73")
	disable := func(code string) *apiResponse {
		return m.c.call(http.MethodPost, "/v1/users/mfa/totp/disable", map[string]any{"code": code}, append(m.auth(), guesser...)...)
	}
	for range 5 {
		disable("000000").want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	}
	if n := eventsOf(t, s.db(), m.id, "mfa_challenge_failed"); n != 5 {
		t.Errorf("%d mfa_challenge_failed events, want 5", n)
	}
	clock.Advance(30 * time.Second)
	disable(totpAt(t, m.secret, clock.Now())).want(t, 429, "TOO_MANY_REQUESTS")
	if on := m.read(t).want(t, 200, "").obj("user")["mfaEnabled"]; on != true {
		t.Errorf("mfaEnabled %v after a slowed disable, want true", on)
	}
}

// TestMFARateClass: the second step and re-authentication share the
// credential class mfa, apart from the password class of logins.
func TestMFARateClass(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "AUTH_RATE_LIMIT_MAX=3"), "api")
	u := register(t, s.client(), "web")
	c := s.client()
	for range 2 {
		verify(c, "user", strings.Repeat("a", 64), "totp", "123456").want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	}
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).want(t, 200, "")
	verify(c, "user", strings.Repeat("a", 64), "totp", "123456").want(t, 429, "TOO_MANY_REQUESTS")
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).want(t, 429, "TOO_MANY_REQUESTS")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
}

// TestPasswordResetLeavesMFAOn: a reset by mail of an account whose
// address is verified sets the password and ends the sessions, but the
// next login still asks for the second factor.
func TestPasswordResetLeavesMFAOn(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	s, clock, m := mfaServer(t, "SMTP_URL="+smtp.URL(), "PUBLIC_URL=https://app.test", "MAIL_RETRY_BACKOFF=0s")
	verifyByMail(t, s, smtp, m.email)
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": m.email}).want(t, 200, "")
	reset := tokenOf(t, waitMails(t, smtp, m.email, "Reset your password", 1)[0], resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}).want(t, 200, "")
	m.read(t).want(t, 401, "")
	r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": m.email, "password": newPassword}).want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED")
	clock.Advance(30 * time.Second)
	verify(s.client(), "user", r.str("mfaToken"), "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
}

// TestVerifyDuringOutages: with PostgreSQL or Redis down the second step
// answers 503 and spends nothing: the same code completes the login once
// the dependency is back.
func TestVerifyDuringOutages(t *testing.T) {
	t.Parallel()
	for _, dep := range []string{"postgresql", "redis"} {
		t.Run(dep, func(t *testing.T) {
			t.Parallel()
			clock := newTestClock()
			env := testEnv(t)
			var stop, start func()
			if dep == "postgresql" {
				pg := faulttest.NewPostgres(t)
				env["DATABASE_URL"], stop, start = pg.URL("actionkit"), pg.Stop, pg.Start
			} else {
				rd := faulttest.NewRedis(t)
				env["REDIS_URL"], stop, start = rd.URL(), rd.Stop, rd.Start
			}
			s := startServerClock(t, env, clock.Now, "api")
			m := enroll(t, register(t, s.client(), "web"), clock, "user")
			clock.Advance(30 * time.Second)
			token := firstStep(t, s, "/v1/users/login", m.email)
			code := totpAt(t, m.secret, clock.Now())
			stop()
			wantUnavailable(t, "verify", verify(s.client(), "user", token, "totp", code), unavailableMessage(t, "en"))
			start()
			if attempts, used := challengeOf(t, s, token); attempts != 0 || used {
				t.Fatalf("the outage spent the challenge: attempts %d, used %v", attempts, used)
			}
			var last *apiResponse
			poll.Until(t, 15*time.Second, "the second step completes", func() bool {
				last = verify(s.client(), "user", token, "totp", code)
				if last.Status != 503 && last.Status != 201 {
					t.Fatalf("verify while %s restarts: %d %s", dep, last.Status, last.Raw)
				}
				return last.Status == 201
			})
		})
	}
}

// TestUnreadableTOTPSecret: a secret that does not open under the data
// key is a logged 500 that names no secret, never a bypass; and a server
// given another DATA_ENCRYPTION_KEY than the stored secrets' refuses to
// start, saying so. The engine's TestUnreadableTOTPSecret checks that the
// challenge is not spent and other owners are not affected.
func TestUnreadableTOTPSecret(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := testEnv(t)
	s := startServerClock(t, env, clock.Now, "api")
	db := s.db()
	m := enroll(t, register(t, s.client(), "web"), clock, "user")
	sqlExec(t, db, `UPDATE mfa_totp SET secret_ciphertext = set_byte(secret_ciphertext, 0, get_byte(secret_ciphertext, 0) # 1) WHERE owner_id = $1`, m.id)
	clock.Advance(30 * time.Second)
	token := firstStep(t, s, "/v1/users/login", m.email)
	r := verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 500, "INTERNAL_SERVER_ERROR")
	if strings.Contains(r.Raw, m.secret) || !strings.Contains(s.logs.String(), "does not open under DATA_ENCRYPTION_KEY") || strings.Contains(s.logs.String(), m.secret) {
		t.Errorf("answer %s; the log must say what failed and hold no secret", r.Raw)
	}

	s.stop()
	env["DATA_ENCRYPTION_KEY"] = strings.Repeat("ab", 32)
	var out syncbuf.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := run(ctx, &environment{args: []string{"api"}, getenv: func(k string) string { return env[k] }, stdout: &out, stderr: &out})
	if code != 1 || !strings.Contains(out.String(), "DATA_ENCRYPTION_KEY cannot open the stored TOTP secrets") {
		t.Errorf("start with another key: exit %d\n%s", code, out.String())
	}
}
