package main

import (
	"fmt"
	"net/http"
	"testing"
)

// TestPasswordClassCountsFailures: one office address where more people
// log in than AUTH_RATE_LIMIT_MAX is never refused for succeeding; its
// failures still spend the password budget, after which every attempt (the
// right password too) is refused, before any password is checked.
func TestPasswordClassCountsFailures(t *testing.T) {
	t.Parallel()
	const budget = 3
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", fmt.Sprintf("AUTH_RATE_LIMIT_MAX=%d", budget), "AUTH_RATE_LIMIT_WINDOW=1h"), "api")
	const office = "203.0.113.40"
	var people []string
	for i := range 12 { // each from an address of its own: register has a budget too
		email := uniqueEmail()
		s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword},
			xff(fmt.Sprintf("198.51.100.%d", i+1))...).want(t, 201, "")
		people = append(people, email)
	}
	for _, email := range people {
		login(s.bareClient(), email, strongPassword, office).want(t, 201, "")
	}
	for range budget {
		login(s.bareClient(), uniqueEmail(), "Not-the-password-1", office).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	r := login(s.bareClient(), people[0], strongPassword, office).want(t, 429, "TOO_MANY_REQUESTS")
	if n := retryAfter(t, r); n < 1 || n > 3600 {
		t.Errorf("Retry-After %d", n)
	}
	s.bareClient().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": uniqueEmail(), "password": strongPassword}, xff(office)...).
		want(t, 429, "TOO_MANY_REQUESTS")
	// Another address is not concerned.
	login(s.bareClient(), people[0], strongPassword, "203.0.113.41").want(t, 201, "")
}

// TestPasswordClassBoundsEveryAttempt: successes are bounded too, at ten
// times AUTH_RATE_LIMIT_MAX attempts of a client in the window.
func TestPasswordClassBoundsEveryAttempt(t *testing.T) {
	t.Parallel()
	const budget = 2
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", fmt.Sprintf("AUTH_RATE_LIMIT_MAX=%d", budget), "AUTH_RATE_LIMIT_WINDOW=1h"), "api")
	u := register(t, s.client(), "web")
	const ip = "203.0.113.50"
	for i := range 10 * budget {
		if r := login(s.bareClient(), u.email, strongPassword, ip); r.Status != 201 {
			t.Fatalf("success %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	login(s.bareClient(), u.email, strongPassword, ip).want(t, 429, "TOO_MANY_REQUESTS")
	login(s.bareClient(), u.email, strongPassword, "203.0.113.51").want(t, 201, "")
}
