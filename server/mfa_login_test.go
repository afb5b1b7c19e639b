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
// factor: 403 with a handle and the methods, no cookie, no token, no
// session, no login counted, one challenge stored as the handle's hash.
func wantMFARequired(t *testing.T, db *sqlx.DB, r *apiResponse, ownerType, id string, before loginTrace, version int, client string) string {
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
	after := traceOf(t, db, ownerType, id)
	if after.Sessions != before.Sessions || after.LoginCount != before.LoginCount || after.Logins != before.Logins ||
		after.Challenges != before.Challenges+1 {
		t.Errorf("after the first step %+v, before %+v: want one challenge more and nothing else", after, before)
	}
	var ch struct {
		FirstFactor string `db:"first_factor"`
		Client      string `db:"client"`
		Version     int    `db:"response_version"`
	}
	if err := db.GetContext(t.Context(), &ch, `SELECT first_factor, client, response_version FROM login_challenges
		WHERE token_hash = $1 AND owner_id = $2 AND used_at IS NULL AND attempts = 0`, sha256Hex(token), id); err != nil {
		t.Fatalf("the challenge is not stored as the handle's SHA-256: %v", err)
	}
	if ch.FirstFactor != "pwd" || ch.Client != client || ch.Version != version {
		t.Errorf("challenge %+v, want pwd, %s, version %d", ch, client, version)
	}
	return token
}

// TestEveryLoginPathOwesTheSecondFactor: V1 and V2 login of users, for web
// and app clients, and admin login, all stop at MFA_REQUIRED for an owner
// with a confirmed second factor, and the handle is no access token.
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
	for _, tc := range []struct {
		path    string
		version int
	}{{"/v1/users/login", 1}, {"/v2/users/login", 2}} {
		for _, client := range []string{"web", "app"} {
			t.Run(tc.path+"/"+client, func(t *testing.T) {
				before := traceOf(t, db, "user", u.id)
				r := s.client().call(http.MethodPost, tc.path, map[string]any{"email": u.email, "password": strongPassword}, "X-Client", client)
				token := wantMFARequired(t, db, r, "user", u.id, before, tc.version, client)
				s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+token).want(t, 401, "UNAUTHORIZED")
			})
		}
	}
	t.Run("admin", func(t *testing.T) {
		email := uniqueEmail()
		id := createAdmin(t, env, email)
		giveConfirmedTOTP(t, db, "admin", id)
		before := traceOf(t, db, "admin", id)
		r := s.client().call(http.MethodPost, "/v1/admins/login", map[string]any{"email": email, "password": strongPassword})
		token := wantMFARequired(t, db, r, "admin", id, before, 1, "web")
		s.client().call(http.MethodGet, "/v1/admins/read", nil, "Authorization", "jwt-admin "+token).want(t, 401, "UNAUTHORIZED")
	})
	t.Run("wrong password", func(t *testing.T) {
		before := traceOf(t, db, "user", u.id)
		s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword + "x"}).
			want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
		if after := traceOf(t, db, "user", u.id); after != before {
			t.Errorf("a wrong password changed %+v into %+v", before, after)
		}
	})
}

// TestSessionAssurance: a session records how it was authenticated, shows
// it, signs it into its access tokens as amr and auth_time, and keeps it
// through refreshes; register and login events carry the methods.
func TestSessionAssurance(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t))
	db := s.db()
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
	var methods []string
	for _, typ := range []string{"register"} {
		var raw string
		if err := db.GetContext(t.Context(), &raw, `SELECT data->>'methods' FROM security_events WHERE owner_id = $1 AND type = $2`, u.id, typ); err != nil {
			t.Fatal(err)
		}
		methods = append(methods, raw)
	}
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	var login string
	if err := db.GetContext(t.Context(), &login, `SELECT data->>'methods' FROM security_events WHERE owner_id = $1 AND type = 'login'`, u.id); err != nil {
		t.Fatal(err)
	}
	if methods[0] != `["pwd"]` || login != `["pwd"]` {
		t.Errorf("event methods: register %s, login %s; want [\"pwd\"]", methods[0], login)
	}
}
