package main

import (
	"net/http"
	"testing"
	"time"
)

// TestOpenAPIDescribesSecondFactorAnswers checks real answers of the
// second factor against the document the server serves: error bodies are
// closed there, so MFA_REQUIRED's and REAUTHENTICATION_REQUIRED's extra
// members must be documented.
func TestOpenAPIDescribesSecondFactorAnswers(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := testEnv(t, "REAUTH_MAX_AGE=2m")
	s := startServerClock(t, env, clock.Now, "api")
	c := s.client()
	check := documentCheck(t, c)
	u := register(t, c, "app")
	auth := u.auth()
	check("GET", "/v1/users/mfa/status", u.c.call(http.MethodGet, "/v1/users/mfa/status", nil, auth...), 200)
	e := u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, auth...)
	check("POST", "/v1/users/mfa/totp/enroll", e, 200)
	check("POST", "/v1/users/mfa/totp/confirm", u.c.call(http.MethodPost, "/v1/users/mfa/totp/confirm", map[string]any{"code": "x"}, auth...), 400)
	conf := u.c.call(http.MethodPost, "/v1/users/mfa/totp/confirm", map[string]any{"code": totpAt(t, e.str("secret"), clock.Now())}, auth...)
	check("POST", "/v1/users/mfa/totp/confirm", conf, 200)
	u.token = conf.str("token")
	auth = u.auth()
	secret, codes := e.str("secret"), strs(conf.Body["recoveryCodes"])

	for _, path := range []string{"/v1/users/login", "/v2/users/login"} {
		first := s.client().call(http.MethodPost, path, map[string]any{"email": u.email, "password": strongPassword})
		check("POST", path, first, 403)
		clock.Advance(30 * time.Second)
		check("POST", "/v1/users/mfa/verify", verify(s.client(), "user", first.str("mfaToken"), "totp", totpAt(t, secret, clock.Now())), 201)
	}
	first := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword})
	check("POST", "/v1/users/mfa/verify", verify(s.client(), "user", first.str("mfaToken"), "recovery_code", codes[0]), 201)
	check("POST", "/v1/users/mfa/verify", verify(s.client(), "user", "x", "totp", "1"), 400)

	clock.Advance(3 * time.Minute)
	check("POST", "/v1/users/mfa/recoverycodes/regenerate", u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, auth...), 403)
	changed := u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": newPassword}, auth...)
	check("POST", "/v1/users/changepassword", changed, 200)
	u.token = changed.str("token")
	auth = u.auth()
	check("POST", "/v1/users/reauthenticate", u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"password": newPassword}, auth...), 200)
	// A change of the factors needs a factor: the password alone is refused.
	check("POST", "/v1/users/mfa/recoverycodes/regenerate", u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, auth...), 403)
	check("POST", "/v1/users/reauthenticate", u.c.call(http.MethodPost, "/v1/users/reauthenticate", map[string]any{"method": "recovery_code", "code": codes[1]}, auth...), 200)
	check("POST", "/v1/users/mfa/recoverycodes/regenerate", u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, auth...), 200)
	clock.Advance(30 * time.Second)
	check("POST", "/v1/users/mfa/totp/disable", u.c.call(http.MethodPost, "/v1/users/mfa/totp/disable", map[string]any{"code": totpAt(t, secret, clock.Now())}, auth...), 200)

	createAdmin(t, env, "openapi-desk@example.com")
	a, _ := adminLogin(t, s, "openapi-desk@example.com", "web")
	check("POST", "/v1/admins/users/resetmfa", adminCall(a, "resetmfa", u.id), 200)
}
