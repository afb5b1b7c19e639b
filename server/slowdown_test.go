package main

import (
	"net/http"
	"testing"
	"time"
)

// TestChangePasswordGuessesAreSlowed: a wrong currentPassword counts as a
// failed login of the account, keyed as logins are, so that a stolen
// access token cannot be used to guess the password faster than a login.
func TestChangePasswordGuessesAreSlowed(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	c := s.client()
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
