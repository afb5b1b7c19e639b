package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bareClient is a client that keeps no cookie (curl, say): the slow-down
// knows it by its address alone.
func (s *testServer) bareClient() *client {
	c := s.client()
	c.http.Jar = nil
	return c
}

// TestChangePasswordGuessesAreSlowed: a wrong currentPassword counts as a
// failed login of the account, keyed as logins are, so that a stolen
// access token cannot be used to guess the password faster than a login.
func TestChangePasswordGuessesAreSlowed(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	c := s.bareClient()
	u := register(t, c, "web")
	const ip = "203.0.113.40"
	change := func(current string) *apiResponse {
		return c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": current, "newPassword": newPassword},
			append(u.auth(), xff(ip)...)...)
	}
	for range 5 {
		change("Wrong-password-123").want(t, 400, "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	}
	// Slowed attempts are not evaluated: the right password waits too.
	if n := retryAfter(t, change(strongPassword).want(t, 429, "TOO_MANY_REQUESTS")); n != 2 {
		t.Fatalf("Retry-After %d after 5 failures, want the first delay", n)
	}
	// The failures are the account's: a login from that client waits too,
	// one from another client does not.
	login(c, u.email, strongPassword, ip).want(t, 429, "TOO_MANY_REQUESTS")
	login(c, u.email, "Wrong-password-123", "203.0.113.41").want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	untilNotSlowed(t, 10*time.Second, func() *apiResponse { return change(strongPassword) }).want(t, 200, "")
}

// deviceCookie returns the value of the device cookie an answer sets, or "".
func deviceCookie(r *apiResponse, name string) string {
	for _, c := range r.Cookies {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// TestDeviceCookie: every successful login sets the device cookie
// (HttpOnly, SameSite=Lax, Path=/, one year) and, for an app, returns its
// value as deviceToken in the body; a value the account already trusts is
// kept, any other (planted, unknown, malformed) is replaced.
func TestDeviceCookie(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	c := s.client()
	u := register(t, c, "web")
	first := deviceCookie(u.res, "jwt-user-device")
	if !hex64(first) || u.res.Body["deviceToken"] != nil {
		t.Fatalf("register: device cookie %q, body %s", first, u.res.Raw)
	}
	line := setCookieLine(u.res, "jwt-user-device")
	if got := strings.Join(cookieAttributes(line), "; "); got != "Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax" {
		t.Errorf("device cookie attributes = %q", got)
	}
	creds := map[string]any{"email": u.email, "password": strongPassword}
	for _, path := range []string{"/v1/users/login", "/v2/users/login"} {
		r := c.call(http.MethodPost, path, creds).want(t, 201, "")
		if got := deviceCookie(r, "jwt-user-device"); got != first || r.Body["deviceToken"] != nil {
			t.Errorf("%s: device cookie %q, want the trusted %q kept; body %s", path, got, first, r.Raw)
		}
	}
	// An app gets the value in the body and sends it back as deviceToken.
	r := s.client().call(http.MethodPost, "/v2/users/login", creds, "X-Client", "app").want(t, 201, "")
	app := r.str("deviceToken")
	if !hex64(app) || app == first || deviceCookie(r, "jwt-user-device") != app {
		t.Fatalf("app login: deviceToken %q, cookie %q", app, deviceCookie(r, "jwt-user-device"))
	}
	again := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword, "deviceToken": app},
		"X-Client", "app").want(t, 201, "")
	if again.str("deviceToken") != app {
		t.Errorf("the trusted deviceToken was replaced by %q", again.str("deviceToken"))
	}
	// A value the account does not trust is never adopted: a planted
	// cookie (here another account's trusted one) is replaced.
	other := register(t, s.client(), "web")
	planted := deviceCookie(other.res, "jwt-user-device")
	for _, value := range []string{planted, strings.Repeat("ab", 32), "not-a-device"} {
		r := c.call(http.MethodPost, "/v1/users/login", creds, "Cookie", "jwt-user-device="+value).want(t, 201, "")
		if got := deviceCookie(r, "jwt-user-device"); !hex64(got) || got == value {
			t.Errorf("a login with the untrusted device %q kept it (%q)", value, got)
		}
	}
	// No cookie on a failure; admins have their own.
	if r := c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": "Wrong-password-123"}).want(t, 400, ""); len(r.Cookies) != 0 {
		t.Errorf("a failed login set %v", r.Header.Values("Set-Cookie"))
	}
	email := uniqueEmail()
	createAdmin(t, env, email)
	_, ar := adminLogin(t, s, email, "web")
	if !hex64(deviceCookie(ar, "jwt-admin-device")) || deviceCookie(ar, "jwt-user-device") != "" {
		t.Errorf("admin login cookies: %v", ar.Header.Values("Set-Cookie"))
	}
}

func hex64(s string) bool { return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "" }

// attack fails n logins of email, from addresses spread so that no
// address reaches its own slow-down: the account's does.
func attack(t *testing.T, s *testServer, email string, n int) {
	t.Helper()
	c := s.client()
	for i := range n {
		r := login(c, email, "Wrong-password-123", fmt.Sprintf("198.51.100.%d", i%25))
		if r.Status != 400 && r.Status != 429 {
			t.Fatalf("attack %d: %d %s", i, r.Status, r.Raw)
		}
	}
}

// TestTrustedDeviceUnderAttack: while a third party makes the account's
// slow-down bite, the owner's device (cookie, or deviceToken for an app)
// logs in from any new address at once; only untrusted clients wait.
func TestTrustedDeviceUnderAttack(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	web := s.client()
	u := register(t, web, "web")
	login(web, u.email, strongPassword, "203.0.113.60").want(t, 201, "")
	device := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
		append(xff("203.0.113.61"), "X-Client", "app")...).want(t, 201, "").str("deviceToken")
	// The attacker also fails from the address the owner will use next,
	// enough to slow that address down.
	const next = "192.0.2.70"
	for range 5 {
		login(s.client(), u.email, "Wrong-password-123", next).want(t, 400, "")
	}
	attack(t, s, u.email, 60)
	login(s.client(), u.email, strongPassword, "192.0.2.71").want(t, 429, "TOO_MANY_REQUESTS")
	login(s.client(), u.email, strongPassword, next).want(t, 429, "TOO_MANY_REQUESTS")
	// The owner's browser, from a new address (the attacked one, even).
	login(web, u.email, strongPassword, next).want(t, 201, "")
	login(web, u.email, strongPassword, "192.0.2.72").want(t, 201, "")
	// The owner's app, from a new address.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword, "deviceToken": device},
		append(xff("192.0.2.73"), "X-Client", "app")...).want(t, 201, "")
	// The attack goes on; the devices are still not slowed, a stranger is.
	attack(t, s, u.email, 20)
	login(web, u.email, strongPassword, "192.0.2.74").want(t, 201, "")
	login(s.client(), u.email, strongPassword, "192.0.2.75").want(t, 429, "TOO_MANY_REQUESTS")
}

// TestResetTrustsItsClient: an owner slowed down by someone else's
// failures, on a new client, resets the password: that client (its
// address, and its browser anywhere) is trusted from then on.
func TestResetTrustsItsClient(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t, "TRUST_PROXY=true")
	u := register(t, s.client(), "web")
	attack(t, s, u.email, 60)
	const fresh = "192.0.2.80"
	phone := s.client()
	login(phone, u.email, strongPassword, fresh).want(t, 429, "TOO_MANY_REQUESTS")
	phone.call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": u.email}, xff(fresh)...).want(t, 200, "")
	token := tokenOf(t, waitMails(t, smtp, u.email, "Reset your password", 1)[0], resetLinkRe)
	r := phone.call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": newPassword}, xff(fresh)...).want(t, 200, "")
	if !hex64(deviceCookie(r, "jwt-user-device")) {
		t.Errorf("the reset set no device cookie: %v", r.Header.Values("Set-Cookie"))
	}
	attack(t, s, u.email, 10)
	login(phone, u.email, newPassword, fresh).want(t, 201, "")
	login(phone, u.email, newPassword, "192.0.2.81").want(t, 201, "")
	login(s.client(), u.email, newPassword, fresh).want(t, 201, "") // the address, without the cookie
	login(s.client(), u.email, newPassword, "192.0.2.82").want(t, 429, "TOO_MANY_REQUESTS")
}
