package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// wireUserKeys are exactly the keys of the user object on the wire: never a
// password, salt, token version, token or hash.
var wireUserKeys = []string{"createdAt", "deletedAt", "email", "emailVerifiedAt", "firstName", "hasPassword", "id", "isActive", "lastLoginAt",
	"lastName", "locale", "loginCount", "mfaEnabled", "timezone", "updatedAt"}

func checkUserObject(t testing.TB, u map[string]any) {
	t.Helper()
	keys := make([]string, 0, len(u))
	for k := range u {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(wireUserKeys, ",") {
		t.Errorf("user keys = %v, want %v", keys, wireUserKeys)
	}
}

func TestRegister(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bothMethods(t, func(t *testing.T, method string) {
		c := s.client()
		email := uniqueEmail()
		r := c.callArgs(method, "/v1/users/register", map[string]any{
			"email": "  " + strings.ToUpper(email) + " ", "password": strongPassword,
			"firstName": "  Ada ", "lastName": "Lovelace", "timezone": "Europe/London", "locale": "zh-tw",
		}, "User-Agent", "test-agent/1.0", "X-Platform", "Android").want(t, 201, "")
		if r.Body["success"] != true || r.str("token") == "" {
			t.Fatalf("body = %s", r.Raw)
		}
		if _, present := r.Body["refreshToken"]; present {
			t.Errorf("a web client got the raw refresh token in the body")
		}
		u := r.obj("user")
		checkUserObject(t, u)
		if u["email"] != email || u["firstName"] != "Ada" || u["timezone"] != "Europe/London" || u["locale"] != "zh-TW" ||
			u["isActive"] != true || u["deletedAt"] != nil || u["loginCount"] != float64(1) || u["lastLoginAt"] == nil {
			t.Errorf("user = %v", u)
		}
		claims := jwtPayload(r.str("token"))
		if claims["aud"] != "user-web" || claims["type"] != "user" || claims["sub"] != u["id"] || claims["iss"] != "actionkit" || claims["tokenVersion"] != float64(0) {
			t.Errorf("claims = %v", claims)
		}
		if exp, iat := claims["exp"].(float64), claims["iat"].(float64); exp-iat != 15*60 {
			t.Errorf("access token lifetime = %vs, want 900", exp-iat)
		}
		line := setCookieLine(r, "jwt-user-refresh")
		if line == "" {
			t.Fatalf("no refresh cookie: %v", r.Header.Values("Set-Cookie"))
		}
		if got := strings.Join(cookieAttributes(line), "; "); got != "Path=/; Max-Age=5184000; HttpOnly; SameSite=Strict" {
			t.Errorf("cookie attributes = %q", got)
		}
		rows := sessionsOf(t, db, u["id"].(string))
		if len(rows) != 1 || rows[0].Client != "web" || rows[0].Platform != "android" || rows[0].Revoked ||
			rows[0].UserAgent == nil || !strings.Contains(*rows[0].UserAgent, "test-agent/1.0") || rows[0].IP == nil {
			t.Errorf("session rows = %+v", rows)
		}
		var hash, password, salt string
		if err := db.QueryRowxContext(t.Context(), `SELECT s.refresh_token_hash, u.password, u.salt FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.id = $1`, u["id"]).Scan(&hash, &password, &salt); err != nil {
			t.Fatal(err)
		}
		if len(hash) != 64 || !strings.HasPrefix(password, "$argon2id$v=19$") || salt == "" || strings.Contains(r.Raw, salt) {
			t.Errorf("stored hash %q password %q salt %q", hash, password, salt)
		}
	})
	t.Run("app client gets the refresh token in the body", func(t *testing.T) {
		u := register(t, s.client(), "app")
		if len(u.refresh) != 64 || setCookieLine(u.res, "jwt-user-refresh") == "" {
			t.Errorf("refreshToken %q, cookie %q", u.refresh, setCookieLine(u.res, "jwt-user-refresh"))
		}
		if aud := jwtPayload(u.token)["aud"]; aud != "user-app" {
			t.Errorf("aud = %v, want user-app", aud)
		}
	})
}

func TestRegisterRules(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	existing := register(t, c, "web")
	long := strings.Repeat("x", 65)
	for _, tc := range []struct {
		name   string
		args   map[string]any
		header []string
		status int
		code   string
		field  string
	}{
		{"missing email", map[string]any{"password": strongPassword}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "email"},
		{"bad email", map[string]any{"email": "nope", "password": strongPassword}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "email"},
		{"email too long", map[string]any{"email": strings.Repeat("a", 250) + "@x.io", "password": strongPassword}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "email"},
		{"missing password", map[string]any{"email": uniqueEmail()}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "password"},
		{"short password", map[string]any{"email": uniqueEmail(), "password": "Ab1!short"}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "password"},
		{"password without symbol", map[string]any{"email": uniqueEmail(), "password": "Abcdefghijk12"}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "password"},
		{"password without upper", map[string]any{"email": uniqueEmail(), "password": "abcdefghij-12"}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "password"},
		{"password too long", map[string]any{"email": uniqueEmail(), "password": strings.Repeat("Aa1-", 33)}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "password"},
		{"first name too long", map[string]any{"email": uniqueEmail(), "password": strongPassword, "firstName": long}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "firstName"},
		{"last name too long", map[string]any{"email": uniqueEmail(), "password": strongPassword, "lastName": long}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "lastName"},
		{"unknown locale", map[string]any{"email": uniqueEmail(), "password": strongPassword, "locale": "fr"}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "locale"},
		{"number for a name", map[string]any{"email": uniqueEmail(), "password": strongPassword, "firstName": 5}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "firstName"},
		{"bad X-Client", map[string]any{"email": uniqueEmail(), "password": strongPassword}, []string{"X-Client", "tv"}, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "X-Client"},
		{"bad X-Platform", map[string]any{"email": uniqueEmail(), "password": strongPassword}, []string{"X-Platform", "i os"}, 400, "BAD_REQUEST_INVALID_ARGUMENTS", "X-Platform"},
		{"invalid timezone", map[string]any{"email": uniqueEmail(), "password": strongPassword, "timezone": "Mars/Olympus"}, nil, 400, "USER_BAD_REQUEST_INVALID_TIMEZONE", ""},
		{"Local is not a zone", map[string]any{"email": uniqueEmail(), "password": strongPassword, "timezone": "Local"}, nil, 400, "USER_BAD_REQUEST_INVALID_TIMEZONE", ""},
		{"existing email", map[string]any{"email": existing.email, "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS", ""},
		{"existing email in other case", map[string]any{"email": strings.ToUpper(existing.email), "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS", ""},
		{"logged in", map[string]any{"email": uniqueEmail(), "password": strongPassword}, existing.auth(), 401, "UNAUTHORIZED", ""},
		{"invalid token is anonymous", map[string]any{"email": uniqueEmail(), "password": strongPassword}, []string{"Authorization", "jwt-user garbage"}, 201, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothMethods(t, func(t *testing.T, method string) {
				args := tc.args
				if tc.name == "number for a name" && method == http.MethodGet {
					// A query string carries only strings: the GET form
					// of this row sends a name that is too long instead.
					args = map[string]any{"email": uniqueEmail(), "password": strongPassword, "firstName": long}
				}
				if tc.status == 201 && method == http.MethodGet {
					args = map[string]any{"email": uniqueEmail(), "password": strongPassword}
				}
				r := s.client().callArgs(method, "/v1/users/register", args, tc.header...).want(t, tc.status, tc.code)
				if tc.field != "" {
					if f := r.obj("fields"); f[tc.field] == nil {
						t.Errorf("fields = %v, want %s named", f, tc.field)
					}
				}
			})
		})
	}
	t.Run("soft-deleted email still exists", func(t *testing.T) {
		gone := register(t, s.client(), "web")
		sqlExec(t, s.db(), `UPDATE users SET deleted_at = now() WHERE id = $1`, gone.id)
		s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": gone.email, "password": strongPassword}).
			want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
	})
}

func TestLoginRules(t *testing.T) {
	t.Parallel()
	// Each call comes from a client of its own (through the loopback proxy):
	// six wrong passwords for one account from one client would be slowed
	// down (TestLoginSlowDownPerPair).
	s := startServer(t, testEnv(t, "TRUST_PROXY=true"), "api")
	var clients atomic.Int32
	db := s.db()
	u := register(t, s.client(), "web")
	inactive := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET is_active = false WHERE id = $1`, inactive.id)
	deleted := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET deleted_at = now() WHERE id = $1`, deleted.id)
	both := register(t, s.client(), "web")
	sqlExec(t, db, `UPDATE users SET is_active = false, deleted_at = now() WHERE id = $1`, both.id)
	for _, tc := range []struct {
		name   string
		args   map[string]any
		header []string
		status int
		code   string
	}{
		{"missing password", map[string]any{"email": u.email}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS"},
		{"bad email", map[string]any{"email": "x", "password": "p"}, nil, 400, "BAD_REQUEST_INVALID_ARGUMENTS"},
		{"unknown email", map[string]any{"email": uniqueEmail(), "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"wrong password", map[string]any{"email": u.email, "password": strongPassword + "x"}, nil, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"password is not trimmed", map[string]any{"email": u.email, "password": " " + strongPassword}, nil, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"password is case-sensitive", map[string]any{"email": u.email, "password": strings.ToLower(strongPassword)}, nil, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"inactive", map[string]any{"email": inactive.email, "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_ACCOUNT_INACTIVE"},
		{"wrong password beats inactive", map[string]any{"email": inactive.email, "password": "Wrong-password-1"}, nil, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
		{"deleted", map[string]any{"email": deleted.email, "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_ACCOUNT_DELETED"},
		{"inactive beats deleted", map[string]any{"email": both.email, "password": strongPassword}, nil, 400, "USER_BAD_REQUEST_ACCOUNT_INACTIVE"},
		{"logged in", map[string]any{"email": u.email, "password": strongPassword}, u.auth(), 401, "UNAUTHORIZED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothMethods(t, func(t *testing.T, method string) {
				headers := append([]string{"X-Forwarded-For", fmt.Sprintf("198.51.100.%d", clients.Add(1))}, tc.header...)
				s.client().callArgs(method, "/v1/users/login", tc.args, headers...).want(t, tc.status, tc.code)
			})
		})
	}
}

func TestLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	u := register(t, s.client(), "web")
	before := time.Now().Add(-time.Second)
	bothMethods(t, func(t *testing.T, method string) {
		r := s.client().callArgs(method, "/v1/users/login", map[string]any{"email": " " + strings.ToUpper(u.email), "password": strongPassword},
			"X-Client", "APP", "X-Platform", "iOS").want(t, 201, "")
		if len(r.str("refreshToken")) != 64 || jwtPayload(r.str("token"))["aud"] != "user-app" {
			t.Errorf("app login: %s", r.Raw)
		}
		user := r.obj("user")
		checkUserObject(t, user)
		last, err := time.Parse(time.RFC3339Nano, user["lastLoginAt"].(string))
		if err != nil || last.Before(before) || last.Location() != time.UTC {
			t.Errorf("lastLoginAt = %v (%v)", user["lastLoginAt"], err)
		}
		rows := sessionsOf(t, db, u.id)
		newest := rows[len(rows)-1]
		if newest.Client != "app" || newest.Platform != "ios" {
			t.Errorf("stored client/platform = %s/%s, want app/ios", newest.Client, newest.Platform)
		}
	})
	var count int64
	if err := db.GetContext(t.Context(), &count, `SELECT login_count FROM users WHERE id = $1`, u.id); err != nil || count != 3 {
		t.Errorf("login_count = %d (%v), want 3 (register and two logins)", count, err)
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	other := register(t, s.client(), "web")
	bothMethods(t, func(t *testing.T, method string) {
		c := s.client()
		r := c.callArgs(method, "/v1/users/read", nil, u.auth()...).want(t, 200, "")
		checkUserObject(t, r.obj("user"))
		if r.obj("user")["id"] != u.id || len(r.Body) != 3 {
			t.Errorf("read = %s", r.Raw)
		}
		for _, leak := range []string{"password", "salt", "tokenVersion", "argon2", "refreshTokenHash"} {
			if strings.Contains(r.Raw, leak) {
				t.Errorf("read leaks %q: %s", leak, r.Raw)
			}
		}
		c.callArgs(method, "/v1/users/read", map[string]any{"id": u.id}, u.auth()...).want(t, 200, "")
		c.callArgs(method, "/v1/users/read", map[string]any{"id": other.id}, u.auth()...).want(t, 400, "USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST")
		c.callArgs(method, "/v1/users/read", map[string]any{"id": "0199a7a0-0000-7000-8000-000000000000"}, u.auth()...).want(t, 400, "USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST")
		c.callArgs(method, "/v1/users/read", map[string]any{"id": "not-a-uuid"}, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		c.callArgs(method, "/v1/users/read", nil).want(t, 401, "UNAUTHORIZED")
	})
	t.Run("messages follow the user's locale", func(t *testing.T) {
		sqlExec(t, s.db(), `UPDATE users SET locale = 'es' WHERE id = $1`, u.id)
		r := s.client().call(http.MethodGet, "/v1/users/read?id="+other.id, nil, append(u.auth(), "Accept-Language", "zh-TW")...)
		if r.str("message") != "La cuenta no existe." {
			t.Errorf("message = %q, want the Spanish one", r.str("message"))
		}
	})
}
