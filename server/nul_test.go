package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestNULInStringArguments sends a NUL character in string arguments of
// real actions: each is a 400 naming the field (never a 500, which is what
// PostgreSQL's refusal of a NUL would give), while tokens keep their own
// rule: a refresh token with a NUL is an unknown one (401), a one-time
// token with a NUL is the purpose's invalid-token code.
func TestNULInStringArguments(t *testing.T) {
	env := testEnv(t)
	s := startServer(t, env)
	u := register(t, s.client(), "app")
	createAdmin(t, env, "nul-admin@example.com")
	a, _ := adminLogin(t, s, "nul-admin@example.com", "web")
	anon := s.client()
	invalid := func(name string, r *apiResponse, field string) {
		t.Helper()
		if r.Status != 400 || r.Body["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" || r.obj("fields")[field] == nil {
			t.Errorf("%s: got %d %s, want 400 BAD_REQUEST_INVALID_ARGUMENTS naming %s", name, r.Status, r.Raw, field)
		}
	}
	invalid("register firstName", anon.call(http.MethodPost, "/v1/users/register",
		map[string]any{"email": uniqueEmail(), "password": strongPassword, "firstName": "\x00"}), "firstName")
	invalid("register lastName in a form", anon.call(http.MethodPost, "/v1/users/register",
		"email="+uniqueEmail()+"&password="+strongPassword+"&lastName=a%00b", "Content-Type", "application/x-www-form-urlencoded"), "lastName")
	invalid("post title", u.c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "A\x00title"}, u.auth()...), "title")
	invalid("admin search query", a.c.call(http.MethodGet, "/v1/admins/users/list?query=%00", nil, a.auth()...), "query")
	invalid("login password", anon.call(http.MethodPost, "/v1/users/login",
		map[string]any{"email": u.email, "password": strongPassword + "\x00"}), "password")
	invalid("login email", anon.call(http.MethodPost, "/v1/users/login?email="+u.email+"%00&password="+strongPassword, nil), "email")

	anon.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": u.refresh[:63] + "\x00"}, "X-Client", "app").
		want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	anon.call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": strings.Repeat("a", 63) + "\x00", "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
	anon.call(http.MethodPost, "/v1/users/verifyemail", map[string]any{"token": "\x00"}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN")
	// The refresh token still works: the NUL one was merely unknown.
	anon.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": u.refresh}, "X-Client", "app").want(t, 200, "")
}
