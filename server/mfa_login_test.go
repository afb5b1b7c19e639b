package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// giveConfirmedTOTP stores a confirmed TOTP row for the owner directly,
// for the tests of the completion step, which only ask whether one
// exists (its ciphertext is never opened there).
func giveConfirmedTOTP(t testing.TB, db *sqlx.DB, ownerType, id string) {
	t.Helper()
	sqlExec(t, db, `INSERT INTO mfa_totp (id, owner_type, owner_id, secret_ciphertext, secret_nonce, confirmed_at)
		VALUES (gen_random_uuid(), $1, $2, '\x00', '\x000000000000000000000000', now())`, ownerType, id)
}

// loginTrace is what a login may have changed of its owner.
type loginTrace struct {
	Sessions   int `db:"sessions"`
	LoginCount int `db:"login_count"`
	Logins     int `db:"logins"`
	Challenges int `db:"challenges"`
}

func traceOf(t testing.TB, db *sqlx.DB, ownerType, id string) loginTrace {
	t.Helper()
	owners, sessions, column := "users", "user_sessions", "user_id"
	if ownerType == "admin" {
		owners, sessions, column = "admins", "admin_sessions", "admin_id"
	}
	var tr loginTrace
	err := db.GetContext(t.Context(), &tr, `SELECT
		(SELECT count(*) FROM `+sessions+` WHERE `+column+` = $2) AS sessions,
		(SELECT login_count FROM `+owners+` WHERE id = $2) AS login_count,
		(SELECT count(*) FROM security_events WHERE owner_type = $1 AND owner_id = $2 AND type = 'login') AS logins,
		(SELECT count(*) FROM login_challenges WHERE owner_type = $1 AND owner_id = $2) AS challenges`, ownerType, id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// wantMFARequired checks a first step's answer to an owner with a second
// factor: 403 with a 64-hex handle, the methods and its lifetime, no
// cookie, no token. It returns the handle.
func wantMFARequired(t *testing.T, r *apiResponse, ownerType string) string {
	t.Helper()
	code := map[string]string{"user": "USER_FORBIDDEN_MFA_REQUIRED", "admin": "ADMIN_FORBIDDEN_MFA_REQUIRED"}[ownerType]
	r.want(t, 403, code)
	token := r.str("mfaToken")
	if !hex64(token) || r.Body["expiresIn"] != float64(300) || !slices.Equal(toStrings(r.Body["methods"]), []string{"totp"}) {
		t.Errorf("answer %s: want a 64-hex mfaToken, methods [totp], expiresIn 300", r.Raw)
	}
	if len(r.Header.Values("Set-Cookie")) != 0 || r.Body["token"] != nil || r.Body["refreshToken"] != nil {
		t.Errorf("MFA_REQUIRED set %v / carries a token: %s", r.Header.Values("Set-Cookie"), r.Raw)
	}
	return token
}

// TestEveryLoginPathOwesTheSecondFactor: V1 and V2 login of users, for web
// and app clients, and admin login, all answer MFA_REQUIRED for an owner
// with a confirmed second factor, and the handle is no access token. The
// engine's TestLoginOwesTheSecondFactor checks that the first step changes
// nothing but one stored challenge.
func TestEveryLoginPathOwesTheSecondFactor(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env)
	db := s.db()
	u := register(t, s.client(), "web")
	if user := u.res.obj("user"); user["mfaEnabled"] != false || user["hasPassword"] != true {
		t.Fatalf("a new user: %s", u.res.Raw)
	}
	giveConfirmedTOTP(t, db, "user", u.id)
	if user := u.read(t).want(t, 200, "").obj("user"); user["mfaEnabled"] != true {
		t.Errorf("read after the factor: %v", user)
	}
	for _, path := range []string{"/v1/users/login", "/v2/users/login"} {
		for _, client := range []string{"web", "app"} {
			t.Run(path+"/"+client, func(t *testing.T) {
				r := s.client().call(http.MethodPost, path, map[string]any{"email": u.email, "password": strongPassword}, "X-Client", client)
				token := wantMFARequired(t, r, "user")
				s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+token).want(t, 401, "UNAUTHORIZED")
			})
		}
	}
	t.Run("admin", func(t *testing.T) {
		email := uniqueEmail()
		id := createAdmin(t, env, email)
		giveConfirmedTOTP(t, db, "admin", id)
		r := s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword})
		token := wantMFARequired(t, r, "admin")
		s.client().call(http.MethodGet, "/v1/admins/read", nil, "Authorization", "jwt-admin "+token).want(t, 401, "UNAUTHORIZED")
	})
}

// TestSessionAssurance: a session's access tokens carry how it was
// authenticated as amr and auth_time, through refreshes too, and the
// session list shows it. The engine's TestSessionAssurance checks what is
// stored and recorded.
func TestSessionAssurance(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t))
	start := time.Now().Add(-time.Second)
	u := register(t, s.client(), "app")
	claims := jwtPayload(u.token)
	authTime := claims["auth_time"].(float64)
	if !slices.Equal(strs(claims["amr"]), []string{"pwd"}) || authTime < float64(start.Unix()) {
		t.Errorf("claims %v: want amr [pwd] and auth_time now", claims)
	}
	r := s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": u.refresh}, "X-Client", "app").want(t, 200, "")
	if c := jwtPayload(r.str("token")); c["auth_time"] != authTime || !slices.Equal(strs(c["amr"]), []string{"pwd"}) {
		t.Errorf("after a refresh: %v, want the login's amr and auth_time", c)
	}
	u.token = r.str("token")
	list := u.c.call(http.MethodGet, "/v1/users/sessions", nil, u.auth()...).want(t, 200, "").Body["sessions"].([]any)
	sess := list[0].(map[string]any)
	at, err := time.Parse(time.RFC3339Nano, sess["authenticatedAt"].(string))
	if err != nil || at.Before(start) || sess["aal"] != float64(1) || sess["provider"] != nil ||
		!slices.Equal(toStrings(sess["authMethods"]), []string{"pwd"}) {
		t.Errorf("session %v: want authMethods [pwd], aal 1, authenticatedAt the login's, provider null", sess)
	}
}
