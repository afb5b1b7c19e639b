package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRefreshBudgetPerSession: the refresh budget is each session's, not
// its client address's: thirty sessions behind one address all refresh,
// one session past its budget is refused (and keeps its token), and
// unknown or malformed tokens still spend the address's budget.
func TestRefreshBudgetPerSession(t *testing.T) {
	t.Parallel()
	const budget = 3
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", fmt.Sprintf("AUTH_RATE_LIMIT_MAX=%d", budget), "AUTH_RATE_LIMIT_WINDOW=1h"), "api")
	u := register(t, s.client(), "app")
	const office = "203.0.113.50"
	refresh := func(raw string) *apiResponse {
		return refreshWith(s.client(), http.MethodPost, raw, append(xff(office), "X-Client", "app")...)
	}
	// Thirty sessions, logged in from thirty addresses (the password budget
	// is the client's), then all used behind one.
	tokens := make([]string, 30)
	for i := range tokens {
		r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
			append(xff(fmt.Sprintf("198.51.100.%d", i+1)), "X-Client", "app")...).want(t, 201, "")
		tokens[i] = r.str("refreshToken")
	}
	for i := range tokens {
		tokens[i] = refresh(tokens[i]).want(t, 200, "").str("refreshToken")
	}
	// One session spends its budget.
	for range budget - 1 {
		tokens[0] = refresh(tokens[0]).want(t, 200, "").str("refreshToken")
	}
	r := refresh(tokens[0]).want(t, 429, "TOO_MANY_REQUESTS")
	if n := retryAfter(t, r); n < 1 || n > 3600 {
		t.Errorf("Retry-After %d, want within the window", n)
	}
	if setCookieLine(r, "jwt-user-refresh") != "" {
		t.Errorf("the refused refresh touched the cookie: %v", r.Header.Values("Set-Cookie"))
	}
	// A web session's refused refresh keeps its cookie too.
	web := s.client()
	register(t, web, "web")
	for range budget {
		web.call(http.MethodPost, "/v1/users/refresh", nil, xff(office)...).want(t, 200, "")
	}
	if r := web.call(http.MethodPost, "/v1/users/refresh", nil, xff(office)...).want(t, 429, "TOO_MANY_REQUESTS"); len(r.Cookies) != 0 {
		t.Errorf("the refused refresh set cookies: %v", r.Header.Values("Set-Cookie"))
	}
	// The others are not concerned.
	tokens[1] = refresh(tokens[1]).want(t, 200, "").str("refreshToken")
	// Unknown and malformed tokens spend the address's budget.
	unknown := strings.Repeat("ab", 32)
	refresh(unknown).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	refresh("not a token").want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	refresh(unknown).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	refresh(unknown).want(t, 429, "TOO_MANY_REQUESTS")
	refresh("not a token").want(t, 429, "TOO_MANY_REQUESTS")
	// ... and only that: the office's sessions still refresh.
	refresh(tokens[2]).want(t, 200, "")
	refreshWith(s.client(), http.MethodPost, unknown, append(xff("203.0.113.51"), "X-Client", "app")...).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
}
