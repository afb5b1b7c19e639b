package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/actionkit/actionkit/models"
)

// strongPassword satisfies the password policy.
const strongPassword = "Correct-Horse-42-battery"

var emailSeq atomic.Int64

func uniqueEmail() string {
	return fmt.Sprintf("user%d@example.com", emailSeq.Add(1))
}

// db opens the test server's database for assertions.
func (s *testServer) db() *sqlx.DB {
	s.t.Helper()
	db, err := models.Open(s.t.Context(), s.env["DATABASE_URL"], 2)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { db.Close() })
	return db
}

// registered is a user registered through the API.
type registered struct {
	c       *client
	email   string
	id      string
	token   string
	refresh string // raw refresh token (app sessions only)
	res     *apiResponse
}

// register creates a user with c; client is "web" or "app".
func register(t testing.TB, c *client, client string) *registered {
	t.Helper()
	email := uniqueEmail()
	r := c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword}, "X-Client", client)
	r.want(t, 201, "")
	return &registered{c: c, email: email, id: fmt.Sprint(r.obj("user")["id"]), token: r.str("token"), refresh: r.str("refreshToken"), res: r}
}

func (u *registered) auth() []string { return []string{"Authorization", "jwt-user " + u.token} }

func (u *registered) read(t testing.TB) *apiResponse {
	t.Helper()
	return u.c.call(http.MethodGet, "/v1/users/read", nil, u.auth()...)
}

// cookie returns the Set-Cookie header line for name, or "".
func setCookieLine(r *apiResponse, name string) string {
	for _, line := range r.Header.Values("Set-Cookie") {
		if strings.HasPrefix(line, name+"=") {
			return line
		}
	}
	return ""
}

// cookieAttributes returns the attributes of a Set-Cookie line, minus the
// name=value pair and the ones named in except.
func cookieAttributes(line string, except ...string) []string {
	parts := strings.Split(line, "; ")
	var out []string
next:
	for _, p := range parts[1:] {
		for _, e := range except {
			if strings.HasPrefix(p, e) {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

// jwtPayload decodes the claims of a token without verifying it.
func jwtPayload(token string) map[string]any {
	_, claims := tokenforge.Decode(token)
	return claims
}

// forge builds an HS256-style token from header and claims, signed with
// secret (no signature when secret is nil).
func forge(header, claims map[string]any, secret []byte) string {
	if secret == nil {
		return tokenforge.Forge(header, claims, tokenforge.None)
	}
	return tokenforge.Forge(header, claims, tokenforge.HMAC(secret))
}

// sessionRow is what tests read of a session.
type sessionRow struct {
	ID         string  `db:"id"`
	Revoked    bool    `db:"revoked"`
	ReplacedBy *string `db:"replaced_by_session_id"`
	LastUsed   bool    `db:"last_used"`
	Client     string  `db:"client"`
	Platform   string  `db:"platform"`
	UserAgent  *string `db:"user_agent"`
	IP         *string `db:"ip_address"`
}

func sessionsOf(t testing.TB, db *sqlx.DB, userID string) []sessionRow {
	t.Helper()
	var rows []sessionRow
	err := db.SelectContext(t.Context(), &rows, `SELECT id, revoked_at IS NOT NULL AS revoked, replaced_by_session_id,
		last_used_at IS NOT NULL AS last_used, client, platform, user_agent::text AS user_agent, ip_address
		FROM user_sessions WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// eventsOf counts the security events of type typ of the user.
func eventsOf(t testing.TB, db *sqlx.DB, userID, typ string) int {
	t.Helper()
	var n int
	err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM security_events
		WHERE owner_type = 'user' AND owner_id = $1 AND type = $2`, userID, typ)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tokenVersionOf(t testing.TB, db *sqlx.DB, userID string) int64 {
	t.Helper()
	var v int64
	if err := db.GetContext(t.Context(), &v, `SELECT token_version FROM users WHERE id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	return v
}

func sqlExec(t testing.TB, db *sqlx.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), query, args...); err != nil {
		t.Fatal(err)
	}
}

// bothMethods runs fn once with GET and once with POST.
func bothMethods(t *testing.T, fn func(t *testing.T, method string)) {
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		t.Run(m, func(t *testing.T) { fn(t, m) })
	}
}

// callArgs sends args as a query string for GET and a JSON body for POST.
func (c *client) callArgs(method, path string, args map[string]any, headers ...string) *apiResponse {
	c.t.Helper()
	if method == http.MethodGet {
		q := make([]string, 0, len(args))
		for k, v := range args {
			q = append(q, k+"="+url.QueryEscape(fmt.Sprint(v)))
		}
		if len(q) > 0 {
			path += "?" + strings.Join(q, "&")
		}
		return c.call(method, path, nil, headers...)
	}
	if args == nil {
		return c.call(method, path, nil, headers...)
	}
	return c.call(method, path, args, headers...)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
