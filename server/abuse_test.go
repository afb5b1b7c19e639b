package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/faulttest"
	"github.com/actionkit/actionkit/internal/poll"
)

// testFirstDelay is the first delay of the login slow-down in tests: long
// enough that two requests never straddle it on a busy machine. Its exact
// value and doubling are tested in package ratelimit with a fake clock.
const testFirstDelay = 2 * time.Second

func init() { loginFirstDelay = testFirstDelay }

// xff is the header of a request forwarded by the (trusted, loopback)
// proxy for client ip.
func xff(ip string) []string { return []string{"X-Forwarded-For", ip} }

func retryAfter(t testing.TB, r *apiResponse) int {
	t.Helper()
	n, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil {
		t.Fatalf("Retry-After %q: %s", r.Header.Get("Retry-After"), r.Raw)
	}
	return n
}

func TestRateLimitIPv6Prefix(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=2", "RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:2::1")...).want(t, 404, "NOT_FOUND")
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:2:ffff:ffff:ffff:9")...).want(t, 404, "NOT_FOUND")
	// A third address of the same /64 shares its budget...
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:2:abcd::7")...).want(t, 429, "TOO_MANY_REQUESTS")
	// ...another /64 has its own.
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:3::1")...).want(t, 404, "NOT_FOUND")

	s48 := startServer(t, testEnv(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=1", "RATE_LIMIT_WINDOW=1m", "RATE_LIMIT_IPV6_PREFIX=48"), "api")
	c = s48.client()
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:2::1")...).want(t, 404, "NOT_FOUND")
	c.call(http.MethodGet, "/nope", nil, xff("2001:db8:1:3::1")...).want(t, 429, "TOO_MANY_REQUESTS")
}

// TestForwardedForSpoofing: hops a client writes itself, left of what the
// trusted proxies appended, gain it nothing.
func TestForwardedForSpoofing(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", "RATE_LIMIT_MAX=1", "RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	c.call(http.MethodGet, "/nope", nil, xff("9.9.9.9, 203.0.113.1")...).want(t, 404, "NOT_FOUND")
	c.call(http.MethodGet, "/nope", nil, xff("8.8.8.8, 203.0.113.1")...).want(t, 429, "TOO_MANY_REQUESTS")
	// Behind a second, private proxy the client is still 203.0.113.1.
	c.call(http.MethodGet, "/nope", nil, xff("7.7.7.7, 203.0.113.1, 10.0.0.8")...).want(t, 429, "TOO_MANY_REQUESTS")
	// A spoofed private hop is skipped too: the client is the right-most
	// untrusted one.
	c.call(http.MethodGet, "/nope", nil, xff("203.0.113.99, 10.9.9.9, 203.0.113.1")...).want(t, 429, "TOO_MANY_REQUESTS")
	c.call(http.MethodGet, "/nope", nil, xff("203.0.113.2")...).want(t, 404, "NOT_FOUND")

	// With a proxy list that leaves loopback out, the header is not read.
	s2 := startServer(t, testEnv(t, "TRUST_PROXY=true", "TRUSTED_PROXIES=192.0.2.0/24", "RATE_LIMIT_MAX=1", "RATE_LIMIT_WINDOW=1m"), "api")
	c = s2.client()
	c.call(http.MethodGet, "/nope", nil, xff("203.0.113.1")...).want(t, 404, "NOT_FOUND")
	c.call(http.MethodGet, "/nope", nil, xff("203.0.113.2")...).want(t, 429, "TOO_MANY_REQUESTS")
}

// TestPasswordClassBudget: every login of every version, users and admins,
// spends one budget per client; other classes have their own.
func TestPasswordClassBudget(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true", "AUTH_RATE_LIMIT_MAX=3", "AUTH_RATE_LIMIT_WINDOW=1m"), "api")
	c := s.client()
	creds := func() map[string]any { return map[string]any{"email": uniqueEmail(), "password": "Not-the-password-1"} }
	me := xff("203.0.113.5")
	c.call(http.MethodPost, "/v1/users/login", creds(), me...).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	c.call(http.MethodPost, "/v2/users/login", creds(), me...).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	c.call(http.MethodPost, "/v1/users/login", creds(), me...).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	for _, path := range []string{"/v1/users/login", "/v2/users/login", "/v1/admins/login"} {
		r := c.call(http.MethodPost, path, creds(), me...).want(t, 429, "TOO_MANY_REQUESTS")
		if n := retryAfter(t, r); n < 1 || n > 60 {
			t.Errorf("%s: Retry-After %d", path, n)
		}
	}
	c.call(http.MethodPost, "/v1/users/refresh", nil, me...).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	c.call(http.MethodPost, "/v1/users/login", creds(), xff("203.0.113.6")...).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	c.call(http.MethodGet, "/v1/users/read", nil, me...).want(t, 401, "UNAUTHORIZED")
}

// login tries email and password from the client at ip.
func login(c *client, email, password, ip string) *apiResponse {
	return c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": email, "password": password}, xff(ip)...)
}

// untilNotSlowed repeats an attempt while it is answered 429 (those
// attempts are not evaluated), within the delay's bound.
func untilNotSlowed(t *testing.T, within time.Duration, attempt func() *apiResponse) *apiResponse {
	t.Helper()
	var r *apiResponse
	poll.Until(t, within, "the slow-down to pass", func() bool {
		r = attempt()
		return r.Status != 429
	})
	return r
}

func TestLoginSlowDownPerPair(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	c := s.bareClient() // clients known by their address alone
	u := register(t, c, "web")
	const ip = "203.0.113.20"
	wrong := func() *apiResponse { return login(c, strings.ToUpper(u.email), "Wrong-password-123", ip) }
	for range 5 {
		wrong().want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	if n := retryAfter(t, wrong().want(t, 429, "TOO_MANY_REQUESTS")); n != 2 {
		t.Fatalf("Retry-After %d after 5 failures, want the first delay", n)
	}
	// Even the right password waits: slowed attempts are not evaluated.
	login(c, u.email, strongPassword, ip).want(t, 429, "TOO_MANY_REQUESTS")
	// Another client of the same account is not slowed.
	login(c, u.email, "Wrong-password-123", "203.0.113.21").want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	untilNotSlowed(t, 10*time.Second, wrong).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	if n := retryAfter(t, wrong().want(t, 429, "TOO_MANY_REQUESTS")); n != 4 {
		t.Fatalf("Retry-After %d after 6 failures, want twice the first delay", n)
	}
	// A success resets the pair: the next failures start from zero. (A
	// second client, so as not to wait for the doubled delay.)
	const ip2 = "203.0.113.22"
	for range 5 {
		login(c, u.email, "Wrong-password-123", ip2).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	login(c, u.email, strongPassword, ip2).want(t, 429, "TOO_MANY_REQUESTS")
	untilNotSlowed(t, 10*time.Second, func() *apiResponse { return login(c, u.email, strongPassword, ip2) }).want(t, 201, "")
	for range 5 {
		login(c, u.email, "Wrong-password-123", ip2).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	login(c, u.email, "Wrong-password-123", ip2).want(t, 429, "TOO_MANY_REQUESTS")
}

func TestLoginSlowDownPerAccount(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	c := s.bareClient() // clients known by their address alone
	u := register(t, c, "web")
	other := register(t, c, "web")
	const trusted = "2001:db8:77::1"
	login(c, u.email, strongPassword, trusted).want(t, 201, "")
	// Credential stuffing: one failure from each of 50 addresses.
	for i := range 50 {
		login(c, u.email, "Wrong-password-123", fmt.Sprintf("198.51.100.%d", i)).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	}
	r := login(c, u.email, strongPassword, "192.0.2.1").want(t, 429, "TOO_MANY_REQUESTS")
	if n := retryAfter(t, r); n != 2 {
		t.Fatalf("Retry-After %d, want the first delay", n)
	}
	// The client that logged in before (any address of its /64) is spared,
	// and other accounts are not concerned.
	login(c, u.email, strongPassword, "2001:db8:77::abcd").want(t, 201, "")
	login(c, other.email, strongPassword, "192.0.2.1").want(t, 201, "")
	// Slowed, not locked: after the delay a new client gets its turn.
	untilNotSlowed(t, 10*time.Second, func() *apiResponse { return login(c, u.email, strongPassword, "192.0.2.1") }).want(t, 201, "")
}

func TestCrossSiteCredentialRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "PUBLIC_URL=https://app.example.com/base", "CORS_ORIGINS=https://partner.example.com"), "api")
	c := s.client()
	u := register(t, c, "web")
	creds := map[string]any{"email": u.email, "password": strongPassword}
	refused := []struct {
		path    string
		headers []string
	}{
		{"/v1/users/login", []string{"Origin", "https://evil.example"}},
		{"/v2/users/login", []string{"Origin", "https://evil.example"}},
		{"/v1/users/login", []string{"Sec-Fetch-Site", "cross-site"}},
		{"/v1/admins/login", []string{"Origin", "null"}},
		{"/v1/users/register", []string{"Origin", "https://evil.example"}},
		{"/v1/users/refresh", []string{"Sec-Fetch-Site", "cross-site"}},
		{"/v1/users/refresh", []string{"Origin", "https://evil.example"}},
		{"/v1/users/logout", append([]string{"Origin", "https://evil.example"}, u.auth()...)},
	}
	for _, tc := range refused {
		r := c.call(http.MethodPost, tc.path, creds, tc.headers...).want(t, 403, "FORBIDDEN")
		if len(r.Cookies) != 0 {
			t.Errorf("%s %v set cookies: %v", tc.path, tc.headers, r.Header.Values("Set-Cookie"))
		}
	}
	// The refused refresh did not touch the session: the cookie still works.
	c.call(http.MethodPost, "/v1/users/refresh", nil).want(t, 200, "")
	for _, origin := range []string{s.URL, "https://app.example.com", "https://partner.example.com"} {
		r := c.call(http.MethodPost, "/v1/users/login", creds, "Origin", origin, "Sec-Fetch-Site", "same-site").want(t, 201, "")
		if setCookieLine(r, "jwt-user-refresh") == "" {
			t.Errorf("login from %s set no refresh cookie", origin)
		}
	}
	// Actions without a credential cookie are not concerned.
	c.call(http.MethodGet, "/v1/users/read", nil, append([]string{"Sec-Fetch-Site", "cross-site"}, u.auth()...)...).want(t, 200, "")
}

// TestSharedLimitAcrossInstances: two API instances share one budget, and
// the second stops admitting within the documented bound: it learns of the
// first one's hits within two sync intervals (plus round trips).
func TestSharedLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	const limit, sync = 200, 100 * time.Millisecond
	env := testEnv(t, "RATE_LIMIT_MAX="+strconv.Itoa(limit), "RATE_LIMIT_WINDOW=1h", "RATE_LIMIT_SYNC_INTERVAL="+sync.String(), "SOCKETS_ENABLED=false")
	a := startServer(t, env, "api")
	b := startServer(t, env, "api")
	ca, cb := a.client(), b.client()
	for i := range limit {
		if r := ca.call(http.MethodGet, "/nope", nil); r.Status != 404 {
			t.Fatalf("hit %d on a: %d", i+1, r.Status)
		}
	}
	ca.call(http.MethodGet, "/nope", nil).want(t, 429, "TOO_MANY_REQUESTS")
	last := time.Now()
	// b had no hit of its own: it admits until it has synced after a did.
	// Hits are paced, so that a b counting alone would admit for 2s.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	admitted, refusedAt := 0, time.Time{}
	for refusedAt.IsZero() && admitted < limit {
		<-tick.C
		switch r := cb.call(http.MethodGet, "/nope", nil); r.Status {
		case 404:
			admitted++
		case 429:
			refusedAt = time.Now()
		default:
			t.Fatalf("b answered %d", r.Status)
		}
	}
	// The bound: what b receives in 2 sync intervals, with 1s of slack for
	// round trips and scheduling on a busy machine.
	if refusedAt.IsZero() || refusedAt.Sub(last) > 2*sync+time.Second {
		t.Fatalf("b admitted %d more, still admitting %v after a's limit (bound %v)", admitted, refusedAt.Sub(last), 2*sync+time.Second)
	}
	t.Logf("b admitted %d more within %v", admitted, refusedAt.Sub(last))
	ca.call(http.MethodGet, "/nope", nil).want(t, 429, "TOO_MANY_REQUESTS")
}

// TestRateLimitRedisStops: when Redis stops, requests are still answered,
// the instance keeps counting alone (what it counted so far included) and
// logs it once, and logins still work.
func TestRateLimitRedisStops(t *testing.T) {
	t.Parallel()
	rd := faulttest.NewRedis(t)
	url, stop := rd.URL(), rd.Stop
	s := startServer(t, testEnv(t, "REDIS_URL="+url, "RATE_LIMIT_MAX=30", "RATE_LIMIT_WINDOW=1h", "RATE_LIMIT_SYNC_INTERVAL=50ms", "SOCKETS_ENABLED=false"), "api")
	c := s.client()
	u := register(t, c, "web")
	for range 10 {
		c.call(http.MethodGet, "/nope", nil).want(t, 404, "NOT_FOUND")
	}
	stop()
	creds := map[string]any{"email": u.email, "password": strongPassword}
	c.call(http.MethodPost, "/v1/users/login", creds).want(t, 201, "")
	c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": "Wrong-password-1"}).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	poll.Until(t, 10*time.Second, "the limiter to log the outage", func() bool {
		c.call(http.MethodGet, "/health", nil).want(t, 200, "")
		return strings.Contains(s.logs.String(), "each instance counts alone")
	})
	// 13 of 30 counted (register, 10 misses, 2 logins): 17 more pass.
	for i := range 17 {
		if r := c.call(http.MethodGet, "/nope", nil); r.Status != 404 {
			t.Fatalf("request %d after the outage: %d %s", i+1, r.Status, r.Raw)
		}
	}
	c.call(http.MethodGet, "/nope", nil).want(t, 429, "TOO_MANY_REQUESTS")
	if n := strings.Count(s.logs.String(), "each instance counts alone"); n != 1 {
		t.Errorf("logged the outage %d times, want once", n)
	}
}
