package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/syncbuf"
)

// createAdmin runs "server admin create" in-process and returns the id.
func createAdmin(t testing.TB, env map[string]string, email string) string {
	t.Helper()
	var out syncbuf.Buffer
	code := run(context.Background(), &environment{args: []string{"admin", "create", "--email", email, "--password", strongPassword},
		getenv: func(k string) string { return env[k] }, stdout: &out, stderr: &out})
	if code != 0 {
		t.Fatalf("admin create: exit %d\n%s", code, out.String())
	}
	var created struct{ ID, Email string }
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, `{"createdAt"`) || strings.Contains(line, `"email":"`+email+`"`) {
			_ = json.Unmarshal([]byte(line), &created)
		}
	}
	if created.ID == "" {
		t.Fatalf("no id printed:\n%s", out.String())
	}
	return created.ID
}

type adminSession struct {
	c       *client
	id      string
	email   string
	token   string
	refresh string
}

func (a *adminSession) auth() []string { return []string{"Authorization", "jwt-admin " + a.token} }

func adminLogin(t testing.TB, s *testServer, email, client string) (*adminSession, *apiResponse) {
	t.Helper()
	c := s.client()
	r := c.call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword}, "X-Client", client).want(t, 201, "")
	return &adminSession{c: c, id: r.obj("admin")["id"].(string), email: email, token: r.str("token"), refresh: r.str("refreshToken")}, r
}

func adminSessionsOf(t testing.TB, s *testServer, id string) (live, rotated, total int) {
	t.Helper()
	err := s.db().QueryRowxContext(t.Context(), `SELECT count(*) FILTER (WHERE revoked_at IS NULL), count(*) FILTER (WHERE replaced_by_session_id IS NOT NULL), count(*)
		FROM admin_sessions WHERE admin_id = $1`, id).Scan(&live, &rotated, &total)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// TestAdminCreateAsAProcess runs the built binary, as an operator would.
func TestAdminCreateAsAProcess(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	bin := serverBinary(t)
	runBin := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	email := uniqueEmail()
	if code, out := runBin("admin", "create", "--email", " "+strings.ToUpper(email), "--password", strongPassword); code != 0 || !strings.Contains(out, `"email":"`+email+`"`) {
		t.Fatalf("create: exit %d\n%s", code, out)
	}
	if code, out := runBin("admin", "create", "--email", email, "--password", strongPassword); code != 1 || !strings.Contains(out, "already exists") {
		t.Errorf("duplicate: exit %d\n%s", code, out)
	}
	if code, out := runBin("admin", "create", "--email", uniqueEmail(), "--password", "weak"); code != 2 || !strings.Contains(out, "--password") {
		t.Errorf("weak password: exit %d\n%s", code, out)
	}
	if code, out := runBin("admin", "create", "--email", email); code != 2 {
		t.Errorf("missing password: exit %d\n%s", code, out)
	}
	s := startServer(t, env, "api")
	adminLogin(t, s, email, "web")
}

func TestAdminFlows(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	email := uniqueEmail()
	id := createAdmin(t, env, email)
	bothMethods(t, func(t *testing.T, method string) {
		a, r := adminLogin(t, s, email, "web")
		claims := jwtPayload(a.token)
		if claims["aud"] != "admin-web" || claims["type"] != "admin" || a.id != id || r.obj("user") != nil || a.refresh != "" {
			t.Fatalf("admin login = %s", r.Raw)
		}
		checkUserObject(t, r.obj("admin"))
		set := setCookieLine(r, "jwt-admin-refresh")
		if strings.Join(cookieAttributes(set), "; ") != "Path=/; Max-Age=5184000; HttpOnly; SameSite=Strict" || setCookieLine(r, "jwt-user-refresh") != "" {
			t.Errorf("admin cookie = %q", set)
		}
		read := a.c.callArgs(method, "/v1/admins/read", nil, a.auth()...).want(t, 200, "")
		if read.obj("admin")["email"] != email {
			t.Errorf("read = %s", read.Raw)
		}
		a.c.callArgs(method, "/v1/admins/read", map[string]any{"id": "0199a7a0-0000-7000-8000-000000000000"}, a.auth()...).want(t, 400, "ADMIN_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST")
		// Rotation through the cookie, then logout clears it with the same attributes.
		rr := a.c.callArgs(method, "/v1/admins/refresh", nil).want(t, 200, "")
		if jwtPayload(rr.str("token"))["aud"] != "admin-web" || rr.obj("admin") == nil {
			t.Errorf("refresh = %s", rr.Raw)
		}
		out := a.c.callArgs(method, "/v1/admins/logout", nil, "Authorization", "jwt-admin "+rr.str("token")).want(t, 200, "")
		cleared := setCookieLine(out, "jwt-admin-refresh")
		if strings.Join(cookieAttributes(set, "Max-Age"), "; ") != strings.Join(cookieAttributes(cleared, "Expires"), "; ") {
			t.Errorf("set %q, cleared %q", set, cleared)
		}
		a.c.callArgs(method, "/v1/admins/refresh", nil).want(t, 401, "ADMIN_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	})
	t.Run("app admin, replay, logout-all", func(t *testing.T) {
		a, _ := adminLogin(t, s, email, "app")
		if len(a.refresh) != 64 || jwtPayload(a.token)["aud"] != "admin-app" {
			t.Fatalf("app admin login: refresh %q", a.refresh)
		}
		next := s.client().call(http.MethodPost, "/v1/admins/refresh", map[string]any{"refreshToken": a.refresh}).want(t, 200, "")
		s.client().call(http.MethodPost, "/v1/admins/refresh", map[string]any{"refreshToken": a.refresh}).want(t, 401, "ADMIN_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
		if live, _, _ := adminSessionsOf(t, s, id); live != 0 {
			t.Errorf("%d admin sessions live after a replay", live)
		}
		s.client().call(http.MethodGet, "/v1/admins/read", nil, "Authorization", "jwt-admin "+next.str("token")).want(t, 401, "UNAUTHORIZED")
		if !strings.Contains(s.logs.String(), `"ownerType":"admin"`) {
			t.Errorf("no admin security event logged")
		}
		b, _ := adminLogin(t, s, email, "app")
		adminLogin(t, s, email, "web")
		b.c.call(http.MethodPost, "/v1/admins/logoutall", nil, b.auth()...).want(t, 200, "")
		if live, _, _ := adminSessionsOf(t, s, id); live != 0 {
			t.Errorf("%d admin sessions live after logout-all", live)
		}
		b.c.call(http.MethodGet, "/v1/admins/read", nil, b.auth()...).want(t, 401, "UNAUTHORIZED")
	})
	t.Run("rules", func(t *testing.T) {
		db := s.db()
		off, gone := uniqueEmail(), uniqueEmail()
		sqlExec(t, db, `UPDATE admins SET is_active = false WHERE id = $1`, createAdmin(t, env, off))
		sqlExec(t, db, `UPDATE admins SET deleted_at = now() WHERE id = $1`, createAdmin(t, env, gone))
		for _, tc := range []struct{ email, password, code string }{
			{email, "Wrong-password-1", "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
			{uniqueEmail(), strongPassword, "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS"},
			{off, strongPassword, "ADMIN_BAD_REQUEST_ACCOUNT_INACTIVE"},
			{gone, strongPassword, "ADMIN_BAD_REQUEST_ACCOUNT_DELETED"},
		} {
			s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": tc.email, "password": tc.password}).want(t, 400, tc.code)
		}
		a, _ := adminLogin(t, s, email, "web")
		a.c.call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword}, a.auth()...).want(t, 401, "UNAUTHORIZED")
		s.client().call(http.MethodPost, "/v1/admins/register", map[string]any{"email": uniqueEmail(), "password": strongPassword}).want(t, 404, "NOT_FOUND")
	})
}

// TestOwnerTypesStayApart: a token of one owner type opens nothing of the
// other, and "must be logged out" refuses only the same owner type.
func TestOwnerTypesStayApart(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	email := uniqueEmail()
	createAdmin(t, env, email)
	a, _ := adminLogin(t, s, email, "web")
	u := register(t, s.client(), "web")
	for _, tc := range []struct {
		name, path string
		header     []string
	}{
		{"admin token on user read", "/v1/users/read", a.auth()},
		{"admin token under the user scheme", "/v1/users/read", []string{"Authorization", "jwt-user " + a.token}},
		{"admin token on user logout-all", "/v1/users/logoutall", a.auth()},
		{"admin token on publish", "/v1/posts/publish", a.auth()},
		{"user token on admin read", "/v1/admins/read", u.auth()},
		{"user token under the admin scheme", "/v1/admins/read", []string{"Authorization", "jwt-admin " + u.token}},
		{"user token on admin logout-all", "/v1/admins/logoutall", u.auth()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.client().call(http.MethodPost, tc.path, map[string]any{"postId": "0199a7a0-0000-7000-8000-000000000000"}, tc.header...).want(t, 401, "UNAUTHORIZED")
		})
	}
	// An admin may log in as a user (different owner type), and vice versa.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, a.auth()...).want(t, 201, "")
	s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword}, u.auth()...).want(t, 201, "")
	u.read(t).want(t, 200, "")
}

// TestLoginVersionsSideBySide: V2Login answers what V1Login does plus the
// session's id and expiry, without changing V1Login.
func TestLoginVersionsSideBySide(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	creds := map[string]any{"email": u.email, "password": strongPassword}
	bothMethods(t, func(t *testing.T, method string) {
		v1r := s.client().callArgs(method, "/v1/users/login", creds).want(t, 201, "")
		v2r := s.client().callArgs(method, "/v2/users/login", creds, "X-Client", "app", "X-Platform", "android").want(t, 201, "")
		if _, has := v1r.Body["session"]; has || len(v1r.Body) != 4 {
			t.Errorf("V1Login changed: %s", v1r.Raw)
		}
		sess := v2r.obj("session")
		if sess["id"] == nil || sess["expiresAt"] == nil || sess["client"] != "app" || sess["platform"] != "android" ||
			v2r.str("tokenExpiresAt") == "" || len(v2r.str("refreshToken")) != 64 || v2r.obj("user")["id"] != u.id {
			t.Errorf("V2Login = %s", v2r.Raw)
		}
		refreshWith(s.client(), method, v2r.str("refreshToken")).want(t, 200, "")
		s.client().callArgs(method, "/v2/users/login", map[string]any{"email": u.email, "password": "Wrong-password-1"}).want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	})
}
