package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestForgedAccessTokens: every unusable token makes the request
// anonymous, so a protected action answers 401 UNAUTHORIZED, never 500.
func TestForgedAccessTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	u := register(t, s.client(), "web")
	stale := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET token_version = token_version + 1 WHERE id = $1`, stale.id)
	gone := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET deleted_at = now() WHERE id = $1`, gone.id)
	off := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET is_active = false WHERE id = $1`, off.id)

	now := time.Now().Unix()
	claims := func(mut func(map[string]any)) map[string]any {
		c := map[string]any{"sub": u.id, "sid": jwtPayload(u.token)["sid"], "type": "user", "tokenVersion": 0,
			"iat": now, "exp": now + 600, "iss": "actionkit", "aud": "user-web"}
		if mut != nil {
			mut(c)
		}
		return c
	}
	hs := map[string]any{"alg": "HS256", "typ": "JWT"}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rs256, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims(claims(nil))).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&key.PublicKey))})
	valid := forge(hs, claims(nil), []byte(testSecret))
	for _, tc := range []struct{ name, header string }{
		{"alg none", "jwt-user " + forge(map[string]any{"alg": "none", "typ": "JWT"}, claims(nil), nil)},
		{"RS256 header", "jwt-user " + rs256},
		{"HS256 keyed with the RSA public key", "jwt-user " + forge(hs, claims(nil), pub)},
		{"tampered signature", "jwt-user " + valid[:len(valid)-2] + flip(valid[len(valid)-2:])},
		{"tampered payload", "jwt-user " + strings.Replace(valid, strings.Split(valid, ".")[1], strings.Split(forge(hs, claims(func(c map[string]any) { c["tokenVersion"] = 7 }), []byte(testSecret)), ".")[1], 1)},
		{"wrong secret", "jwt-user " + forge(hs, claims(nil), []byte("another-secret-another-secret-another"))},
		{"wrong audience", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["aud"] = "admin-web" }), []byte(testSecret))},
		{"audience array", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["aud"] = []string{"user-web"} }), []byte(testSecret))},
		{"wrong issuer", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["iss"] = "evil" }), []byte(testSecret))},
		{"expired", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["exp"] = now - 120; c["iat"] = now - 1000 }), []byte(testSecret))},
		{"no expiry", "jwt-user " + forge(hs, claims(func(c map[string]any) { delete(c, "exp") }), []byte(testSecret))},
		{"admin type under user scheme", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["type"] = "admin"; c["aud"] = "admin-web" }), []byte(testSecret))},
		{"user token under jwt-admin", "jwt-admin " + u.token},
		{"bearer scheme", "Bearer " + u.token},
		{"no scheme", u.token},
		{"stale token version", "jwt-user " + stale.token},
		{"soft-deleted user", "jwt-user " + gone.token},
		{"inactive user", "jwt-user " + off.token},
		{"unknown subject", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["sub"] = "0199a7a0-0000-7000-8000-000000000000" }), []byte(testSecret))},
		{"no session", "jwt-user " + forge(hs, claims(func(c map[string]any) { delete(c, "sid") }), []byte(testSecret))},
		{"unknown session", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["sid"] = "0199a7a0-0000-7000-8000-000000000001" }), []byte(testSecret))},
		{"another user's session", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["sid"] = jwtPayload(stale.token)["sid"] }), []byte(testSecret))},
		{"subject not a uuid", "jwt-user " + forge(hs, claims(func(c map[string]any) { c["sub"] = "'; DROP TABLE users; --" }), []byte(testSecret))},
		{"huge header", "jwt-user " + strings.Repeat("a", 20000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothMethods(t, func(t *testing.T, method string) {
				s.client().call(method, "/v1/users/read", nil, "Authorization", tc.header).want(t, 401, "UNAUTHORIZED")
			})
		})
	}
	t.Run("the forged token's twin is accepted", func(t *testing.T) {
		s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+valid).want(t, 200, "")
		s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "JWT-USER "+valid).want(t, 200, "")
	})
	t.Run("a user token does not open admin actions", func(t *testing.T) {
		s.client().call(http.MethodGet, "/v1/admins/read", nil, u.auth()...).want(t, 401, "UNAUTHORIZED")
		s.client().call(http.MethodGet, "/v1/admins/read", nil, "Authorization", "jwt-admin "+u.token).want(t, 401, "UNAUTHORIZED")
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// parallel runs fn n times at once and counts the statuses it returns.
func parallel(n int, fn func(i int) int) map[int]int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	counts := map[int]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code := fn(i)
			mu.Lock()
			counts[code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return counts
}

// TestLogsHoldNoSecrets runs every flow, with credentials in query strings
// too, and then searches the logs for them.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	u := register(t, s.client(), "app")
	device := u.res.str("deviceToken")
	c.call(http.MethodGet, "/v1/users/login?email="+u.email+"&password="+strongPassword+"&deviceToken="+device, nil, "X-Client", "app").want(t, 201, "")
	r := s.client().call(http.MethodGet, "/v1/users/refresh?refreshToken="+u.refresh, nil).want(t, 200, "")
	refreshWith(s.client(), http.MethodGet, u.refresh).want(t, 401, "")
	c.call(http.MethodGet, "/v1/users/read?token="+u.token, nil, u.auth()...)
	// A ; separator, which some proxies and frameworks accept, hides nothing.
	s.client().call(http.MethodGet, "/v1/users/login?email="+u.email+";password="+strongPassword, nil)
	logs := s.logs.String()
	for name, secret := range map[string]string{"password": strongPassword, "refresh token": u.refresh, "access token": u.token,
		"rotated token": r.str("refreshToken"), "signing secret": testSecret, "refresh hash": sha256Hex(u.refresh),
		"device token": device} {
		if strings.Contains(logs, secret) {
			t.Errorf("the logs contain the %s", name)
		}
	}
	if !strings.Contains(logs, "[REDACTED]") {
		t.Errorf("no redaction seen in the access log")
	}
}
