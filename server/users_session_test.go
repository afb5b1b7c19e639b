package main

import (
	"net/http"
	"strings"
	"testing"
)

// refreshWith presents a refresh token in the body (as a mobile client).
func refreshWith(c *client, method, raw string, headers ...string) *apiResponse {
	return c.callArgs(method, "/v1/users/refresh", map[string]any{"refreshToken": raw}, headers...)
}

func TestRefreshRotates(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bothMethods(t, func(t *testing.T, method string) {
		t.Run("app session through the body", func(t *testing.T) {
			u := register(t, s.client(), "app")
			// The audience follows the session's client, not this request's X-Client.
			r := refreshWith(s.client(), method, u.refresh, "X-Client", "web", "X-Platform", "web").want(t, 200, "")
			next := r.str("refreshToken")
			if len(next) != 64 || next == u.refresh || r.str("token") == "" || jwtPayload(r.str("token"))["aud"] != "user-app" {
				t.Fatalf("refresh = %s", r.Raw)
			}
			checkUserObject(t, r.obj("user"))
			rows := sessionsOf(t, db, u.id)
			if len(rows) != 2 || !rows[0].Revoked || rows[0].ReplacedBy == nil || *rows[0].ReplacedBy != rows[1].ID ||
				!rows[0].LastUsed || rows[1].Revoked || rows[1].Client != "app" || rows[1].Platform != rows[0].Platform {
				t.Errorf("sessions after rotation = %+v", rows)
			}
			if line := setCookieLine(r, "jwt-user-refresh"); !strings.HasPrefix(line, "jwt-user-refresh="+next+";") {
				t.Errorf("new cookie = %q", line)
			}
			refreshWith(s.client(), method, next).want(t, 200, "")
		})
		t.Run("web session through the cookie", func(t *testing.T) {
			c := s.client()
			u := register(t, c, "web")
			r := c.callArgs(method, "/v1/users/refresh", nil).want(t, 200, "")
			if _, present := r.Body["refreshToken"]; present || jwtPayload(r.str("token"))["aud"] != "user-web" {
				t.Errorf("web refresh = %s", r.Raw)
			}
			c.callArgs(method, "/v1/users/refresh", nil).want(t, 200, "")
			if rows := sessionsOf(t, db, u.id); len(rows) != 3 || rows[2].Revoked || !rows[1].Revoked {
				t.Errorf("chain = %+v", rows)
			}
		})
	})
}

func TestRefreshCookieWinsOverBody(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	web := s.client()
	register(t, web, "web")
	app := register(t, s.client(), "app")
	// The cookie is read first: the app user's body token is not used.
	r := refreshWith(web, http.MethodPost, app.refresh).want(t, 200, "")
	if jwtPayload(r.str("token"))["aud"] != "user-web" {
		t.Errorf("the body token was used over the cookie")
	}
	refreshWith(s.client(), http.MethodPost, app.refresh).want(t, 200, "")
}

// TestRefreshTransitions: the HTTP answers of the refresh rules (the
// session states of docs/security.md), by GET and POST: every refusal is
// 401 INVALID_REFRESH_TOKEN, and the access tokens of an ended session or
// of a theft are refused at once. The engine's TestRefreshTransitions
// checks what each row changes.
func TestRefreshTransitions(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bothMethods(t, func(t *testing.T, method string) {
		t.Run("no token", func(t *testing.T) {
			s.client().callArgs(method, "/v1/users/refresh", nil).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		})
		t.Run("unknown token", func(t *testing.T) {
			refreshWith(s.client(), method, strings.Repeat("ab", 32)).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		})
		t.Run("expired session", func(t *testing.T) {
			u := register(t, s.client(), "app")
			sqlExec(t, db, `UPDATE user_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, u.id)
			refreshWith(s.client(), method, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		})
		t.Run("revoked session", func(t *testing.T) {
			u := register(t, s.client(), "app")
			sqlExec(t, db, `UPDATE user_sessions SET revoked_at = '2020-01-01T00:00:00Z' WHERE user_id = $1`, u.id)
			refreshWith(s.client(), method, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			u.read(t).want(t, 401, "UNAUTHORIZED") // an ended session ends its access tokens
		})
		for _, flag := range []string{"is_active = false", "deleted_at = now()"} {
			t.Run("owner "+flag, func(t *testing.T) {
				u := register(t, s.client(), "app")
				sqlExec(t, db, `UPDATE users SET `+flag+` WHERE id = $1`, u.id)
				refreshWith(s.client(), method, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			})
		}
		t.Run("replay of a rotated token is theft", func(t *testing.T) {
			u := register(t, s.client(), "app")
			next := refreshWith(s.client(), method, u.refresh).want(t, 200, "")
			refreshWith(s.client(), method, u.refresh).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			u.read(t).want(t, 401, "UNAUTHORIZED")
			s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+next.str("token")).want(t, 401, "UNAUTHORIZED")
			refreshWith(s.client(), method, next.str("refreshToken")).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		})
	})
	t.Run("malformed tokens are unknown", func(t *testing.T) {
		for _, body := range []string{`{"refreshToken":12345}`, `{"refreshToken":{"a":1}}`, `{"refreshToken":["x"]}`, `{"refreshToken":"short"}`,
			`{"refreshToken":"` + strings.Repeat("AB", 32) + `"}`, `{"refreshToken":"` + strings.Repeat("z", 64) + `"}`, `{"refreshToken":null}`} {
			s.client().call(http.MethodPost, "/v1/users/refresh", body).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		}
	})
}

// TestLogout ends the session of the access token (its sid claim):
// its access token is refused at once, the refresh cookie is cleared, a
// presented refresh token of another of the caller's sessions ends that one
// too, and a foreign or unknown refresh token is ignored.
func TestLogout(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bothMethods(t, func(t *testing.T, method string) {
		c := s.client()
		u := register(t, c, "web")
		login := func() *registered {
			r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "app").want(t, 201, "")
			return &registered{c: s.client(), email: u.email, id: u.id, token: r.str("token"), refresh: r.str("refreshToken")}
		}
		second, third, fourth := login(), login(), login()
		stranger := register(t, s.client(), "app")
		set := setCookieLine(u.res, "jwt-user-refresh")
		live := func() int {
			n := 0
			for _, row := range sessionsOf(t, db, u.id) {
				if !row.Revoked {
					n++
				}
			}
			return n
		}
		// The cookie comes first: a stranger's token in the body is ignored.
		r := c.callArgs(method, "/v1/users/logout", map[string]any{"refreshToken": stranger.refresh}, u.auth()...).want(t, 200, "")
		if len(r.Body) != 2 {
			t.Errorf("logout body = %s", r.Raw)
		}
		cleared := setCookieLine(r, "jwt-user-refresh")
		if !strings.HasPrefix(cleared, "jwt-user-refresh=;") ||
			strings.Join(cookieAttributes(set, "Max-Age"), "; ") != strings.Join(cookieAttributes(cleared, "Expires"), "; ") ||
			!strings.Contains(cleared, "Expires=Thu, 01 Jan 1970 00:00:00 GMT") || strings.Contains(cleared, "Max-Age") {
			t.Errorf("set %q, cleared %q: want the same attributes", set, cleared)
		}
		if n := live(); n != 3 {
			t.Errorf("%d live sessions after one logout, want 3", n)
		}
		u.read(t).want(t, 401, "UNAUTHORIZED") // the ended session's access token, at once
		second.read(t).want(t, 200, "")
		// A refresh token of another live session of the caller ends it too.
		second.c.callArgs(method, "/v1/users/logout", map[string]any{"refreshToken": third.refresh}, second.auth()...).want(t, 200, "")
		second.read(t).want(t, 401, "UNAUTHORIZED")
		third.read(t).want(t, 401, "UNAUTHORIZED")
		fourth.read(t).want(t, 200, "")
		// A foreign refresh token changes nothing of its owner's.
		fourth.c.callArgs(method, "/v1/users/logout", map[string]any{"refreshToken": stranger.refresh}, fourth.auth()...).want(t, 200, "")
		if rows := sessionsOf(t, db, stranger.id); rows[0].Revoked {
			t.Errorf("a foreign token in the body revoked its session")
		}
		stranger.read(t).want(t, 200, "")
		if n := live(); n != 0 {
			t.Errorf("%d live sessions after every logout, want 0", n)
		}
		s.client().callArgs(method, "/v1/users/logout", nil).want(t, 401, "UNAUTHORIZED")
		s.client().callArgs(method, "/v1/users/logout", nil, fourth.auth()...).want(t, 401, "UNAUTHORIZED")
		if n := eventsOf(t, db, u.id, "logout"); n != 3 {
			t.Errorf("%d logout events, want 3", n)
		}
	})
}

func TestLogoutAll(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bothMethods(t, func(t *testing.T, method string) {
		c := s.client()
		u := register(t, c, "web")
		second := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "app").want(t, 201, "")
		ended := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "app").want(t, 201, "")
		sqlExec(t, db, `UPDATE user_sessions SET revoked_at = '2020-01-01T00:00:00Z' WHERE refresh_token_hash = $1`, sha256Hex(ended.str("refreshToken")))
		r := c.callArgs(method, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
		if cleared := setCookieLine(r, "jwt-user-refresh"); !strings.HasPrefix(cleared, "jwt-user-refresh=;") {
			t.Errorf("cookie not cleared: %q", cleared)
		}
		for _, row := range sessionsOf(t, db, u.id) {
			if !row.Revoked {
				t.Errorf("session %s survived", row.ID)
			}
		}
		var untouched bool
		if err := db.GetContext(t.Context(), &untouched, `SELECT bool_or(revoked_at = '2020-01-01T00:00:00Z') FROM user_sessions WHERE user_id = $1`, u.id); err != nil || !untouched {
			t.Errorf("an already-revoked session was changed (%v)", err)
		}
		if v := tokenVersionOf(t, db, u.id); v != 1 {
			t.Errorf("token version = %d, want 1", v)
		}
		u.read(t).want(t, 401, "UNAUTHORIZED")
		s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+second.str("token")).want(t, 401, "UNAUTHORIZED")
		refreshWith(s.client(), method, second.str("refreshToken")).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		c.callArgs(method, "/v1/users/logoutall", nil).want(t, 401, "UNAUTHORIZED")
		if n := eventsOf(t, db, u.id, "logoutall"); n != 1 {
			t.Errorf("%d logoutall events, want 1", n)
		}
	})
}
