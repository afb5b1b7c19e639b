package main

import (
	"net/http"
	"testing"
)

// TestPasswordlessAccount: an account without a password (made through
// an identity provider) refuses a password login as a wrong password, and
// a password change as a wrong current password, never a 500, and shows
// hasPassword false.
func TestPasswordlessAccount(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	sqlExec(t, s.db(), `UPDATE users SET password = NULL, salt = '' WHERE id = $1`, u.id)
	if r := u.read(t).want(t, 200, ""); r.obj("user")["hasPassword"] != false {
		t.Errorf("hasPassword: got %v, want false", r.obj("user")["hasPassword"])
	}
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": ""}).
		want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": strongPassword + "!"}, u.auth()...).
		want(t, 400, "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
	u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": strongPassword}, u.auth()...).
		want(t, 400, "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD")
}
