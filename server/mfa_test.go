package main

import (
	"encoding/base32"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestTOTPEnrolment walks the setup: status, enroll, a wrong then a right
// confirmation, what the confirmation changes (other sessions end, the
// caller's goes on at level 2), and that the setup's code cannot log in.
func TestTOTPEnrolment(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t, "MFA_ISSUER=Acme Test"), clock.Now)
	db := s.db()
	u := register(t, s.client(), "app")
	other := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	st := u.c.call(http.MethodGet, "/v1/users/mfa/status", nil, u.auth()...).want(t, 200, "").obj("mfa")
	if st["enabled"] != false || len(st["methods"].([]any)) != 0 || st["totpConfirmedAt"] != nil || st["recoveryCodesRemaining"] != float64(0) || st["passkeys"] != float64(0) {
		t.Fatalf("status before: %v", st)
	}
	e := u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...).want(t, 200, "")
	secret, link := e.str("secret"), e.str("otpauthUrl")
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil || len(raw) != 20 {
		t.Fatalf("secret %q: %d bytes, %v; want 20", secret, len(raw), err)
	}
	parsed, err := url.Parse(link)
	if err != nil || parsed.Scheme != "otpauth" || parsed.Host != "totp" || parsed.Query().Get("secret") != secret ||
		parsed.Query().Get("issuer") != "Acme Test" || !strings.Contains(parsed.Path, u.email) {
		t.Errorf("otpauthUrl %q", link)
	}
	if e.str("issuer") != "Acme Test" || e.str("accountName") != u.email || e.Body["digits"] != float64(6) || e.Body["period"] != float64(30) || e.str("algorithm") != "SHA1" {
		t.Errorf("enrolment %s", e.Raw)
	}
	checkQRCode(t, e.str("qrCode"))
	// Pending is not enabled: logins stay one step.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	// A second enrolment replaces the pending secret.
	secret = u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...).want(t, 200, "").str("secret")
	confirm := func(code string) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/mfa/totp/confirm", map[string]any{"code": code}, u.auth()...)
	}
	confirm(totpAt(t, e.str("secret"), clock.Now())).want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	confirm("12345").want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	setup := totpAt(t, secret, clock.Now())
	r := confirm(setup[:3]+" "+setup[3:]).want(t, 200, "")
	codes := strs(r.Body["recoveryCodes"])
	if len(codes) != 10 || r.str("refreshToken") == "" || r.obj("user")["mfaEnabled"] != true {
		t.Fatalf("confirmation %s", r.Raw)
	}
	for _, c := range codes {
		if !recoveryCodeRe.MatchString(c) {
			t.Errorf("recovery code %q is not xxxxx-xxxxx-xxxxx-xxxxx of Crockford base32", c)
		}
	}
	// Every other session ended; the caller's goes on, at level 2.
	s.client().call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+other.str("token")).want(t, 401, "")
	s.client().call(http.MethodGet, "/v1/users/read", nil, u.auth()...).want(t, 401, "") // the old token of the caller too
	u.token = r.str("token")
	if c := jwtPayload(u.token); !slices.Equal(strs(c["amr"]), []string{"pwd", "otp"}) {
		t.Errorf("amr %v", c["amr"])
	}
	sess := u.c.call(http.MethodGet, "/v1/users/sessions", nil, u.auth()...).want(t, 200, "").Body["sessions"].([]any)
	if len(sess) != 1 || sess[0].(map[string]any)["aal"] != float64(2) || sess[0].(map[string]any)["current"] != true {
		t.Errorf("sessions after the confirmation: %v", sess)
	}
	if eventsOf(t, db, u.id, "mfa_enabled") != 1 {
		t.Error("no mfa_enabled event")
	}
	confirm(totpAt(t, secret, clock.Now())).want(t, 400, "USER_BAD_REQUEST_TOTP_NOT_PENDING")
	u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...).want(t, 400, "USER_BAD_REQUEST_TOTP_ALREADY_ENABLED")
	st = u.c.call(http.MethodGet, "/v1/users/mfa/status", nil, u.auth()...).want(t, 200, "").obj("mfa")
	if st["enabled"] != true || !slices.Equal(toStrings(st["methods"]), []string{"recovery_code", "totp"}) || st["recoveryCodesRemaining"] != float64(10) || st["totpConfirmedAt"] == nil {
		t.Errorf("status after: %v", st)
	}

	// The setup's code consumed its step: it cannot log in.
	token := firstStep(t, s, "/v1/users/login", u.email)
	verify(s.client(), "user", token, "totp", setup).want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	clock.Advance(30 * time.Second)
	verify(s.client(), "user", token, "totp", totpAt(t, secret, clock.Now())).want(t, 201, "")
}

// TestVerifyAnswersAsTheFirstStep: the second step answers what the first
// would have (V1 for web and app, V2's shape), counts the login then, and
// records how the session was authenticated.
func TestVerifyAnswersAsTheFirstStep(t *testing.T) {
	t.Parallel()
	s, clock, m := mfaServer(t)
	db := s.db()
	for _, tc := range []struct {
		path, client string
		v2           bool
	}{{"/v1/users/login", "web", false}, {"/v1/users/login", "app", false}, {"/v2/users/login", "app", true}, {"/v2/users/login", "web", true}} {
		t.Run(tc.path+"/"+tc.client, func(t *testing.T) {
			clock.Advance(30 * time.Second)
			before := traceOf(t, db, "user", m.id)
			token := firstStep(t, s, tc.path, m.email, "X-Client", tc.client)
			// The second step's own X-Client does not matter: the login's does.
			r := verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 201, "")
			if (r.str("refreshToken") != "") != (tc.client == "app") || r.obj("user")["loginCount"] != float64(before.LoginCount+1) {
				t.Errorf("answer %s", r.Raw)
			}
			if line := setCookieLine(r, "jwt-user-refresh"); line == "" || !strings.Contains(line, "HttpOnly") {
				t.Errorf("refresh cookie %q", line)
			}
			if _, has := r.Body["session"]; has != tc.v2 || (r.Body["tokenExpiresAt"] != nil) != tc.v2 {
				t.Errorf("V2 shape %v: %s", tc.v2, r.Raw)
			}
			if tc.v2 && r.obj("session")["client"] != tc.client {
				t.Errorf("session %v", r.obj("session"))
			}
			claims := jwtPayload(r.str("token"))
			if !slices.Equal(strs(claims["amr"]), []string{"pwd", "otp"}) || claims["aud"] != "user-"+tc.client {
				t.Errorf("claims %v", claims)
			}
			after := traceOf(t, db, "user", m.id)
			if after.Sessions != before.Sessions+1 || after.Logins != before.Logins+1 {
				t.Errorf("before %+v after %+v", before, after)
			}
			verify(s.client(), "user", token, "totp", totpAt(t, m.secret, clock.Now().Add(30*time.Second))).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
		})
	}
	var methods string
	if err := db.GetContext(t.Context(), &methods, `SELECT data->>'methods' FROM security_events WHERE owner_id = $1 AND type = 'login'
		ORDER BY created_at DESC LIMIT 1`, m.id); err != nil || methods != `["pwd", "otp"]` {
		t.Errorf("login event methods %q, %v", methods, err)
	}
}

// TestVerifyRefusals: malformed, wrong, replayed and expired input get the
// contract's 400, change nothing but the attempt count, and a challenge
// burns after MFA_CHALLENGE_MAX_ATTEMPTS wrong codes.
func TestVerifyRefusals(t *testing.T) {
	t.Parallel()
	// Wrong codes slow the account down for their client: each client
	// below is another address.
	s, clock, m := mfaServer(t, "TRUST_PROXY=true")
	db := s.db()
	clock.Advance(30 * time.Second)
	token := firstStep(t, s, "/v1/users/login", m.email)
	c := s.client()
	for _, bad := range []string{"abc", strings.ToUpper(token), token + "0", strings.Repeat("0", 64)} {
		verify(c, "user", bad, "totp", totpAt(t, m.secret, clock.Now())).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	}
	c.call(http.MethodPost, "/v1/users/mfa/verify", map[string]any{"method": "totp", "code": "123456"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	verify(c, "user", token, "sms", "123456").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	before := traceOf(t, db, "user", m.id)
	wrong := []struct{ method, code, want string }{
		{"totp", "abcdef", "USER_BAD_REQUEST_INVALID_TOTP_CODE"},
		{"totp", totpAt(t, m.secret, clock.Now().Add(-2*time.Minute)), "USER_BAD_REQUEST_INVALID_TOTP_CODE"},
		{"recovery_code", "not-a-code", "USER_BAD_REQUEST_INVALID_RECOVERY_CODE"},
		{"webauthn", "", "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE"},
	}
	for i, w := range wrong {
		verify(c, "user", token, w.method, w.code).want(t, 400, w.want)
		if attempts, used := challengeOf(t, s, token); attempts != i+1 || used {
			t.Fatalf("after %d wrong factors: attempts %d used %v", i+1, attempts, used)
		}
	}
	if after := traceOf(t, db, "user", m.id); after != before {
		t.Errorf("wrong factors changed %+v into %+v", before, after)
	}
	if n := eventsOf(t, db, m.id, "mfa_challenge_failed"); n != len(wrong) {
		t.Errorf("%d mfa_challenge_failed events, want %d", n, len(wrong))
	}
	// The fifth wrong code burns it: the right one no longer works.
	verify(c, "user", token, "totp", "000000").want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now())).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	// An expired challenge (another client: the first is slowed down now).
	other := xff("203.0.113.61")
	token = firstStep(t, s, "/v1/users/login", m.email, other...)
	clock.Advance(5*time.Minute + time.Second)
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), other...).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	if attempts, _ := challengeOf(t, s, token); attempts != 0 {
		t.Errorf("an expired challenge counted %d attempts", attempts)
	}
	// A caller holding a valid user token is refused, as at login.
	token = firstStep(t, s, "/v1/users/login", m.email, other...)
	clock.Advance(30 * time.Second)
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), append(m.auth(), other...)...).want(t, 401, "UNAUTHORIZED")
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), other...).want(t, 201, "")
}

// TestRecoveryCodes: a recovery code logs in once, whatever its case and
// separators; a new set voids the old one; the database holds no secret
// or code in plain text.
func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	s, _, m := mfaServer(t)
	db := s.db()
	typed := strings.ToLower(strings.ReplaceAll(m.codes[3], "-", " "))
	token := firstStep(t, s, "/v1/users/login", m.email)
	r := verify(s.client(), "user", token, "recovery_code", typed).want(t, 201, "")
	if r.Body["recoveryCodesRemaining"] != float64(9) {
		t.Errorf("answer %s: want recoveryCodesRemaining 9", r.Raw)
	}
	if c := jwtPayload(r.str("token")); !slices.Equal(strs(c["amr"]), []string{"pwd", "rcv"}) {
		t.Errorf("amr %v", c["amr"])
	}
	token = firstStep(t, s, "/v1/users/login", m.email)
	verify(s.client(), "user", token, "recovery_code", m.codes[3]).want(t, 400, "USER_BAD_REQUEST_INVALID_RECOVERY_CODE")
	if eventsOf(t, db, m.id, "recovery_code_used") != 1 {
		t.Error("no recovery_code_used event")
	}
	scanForSecrets(t, db, append([]string{m.secret}, m.codes...))

	u := m.registered
	u.token = r.str("token")
	fresh := strs(u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, u.auth()...).want(t, 200, "").Body["recoveryCodes"])
	if len(fresh) != 10 || slices.Contains(fresh, m.codes[0]) {
		t.Fatalf("new set %v", fresh)
	}
	verify(s.client(), "user", token, "recovery_code", m.codes[0]).want(t, 400, "USER_BAD_REQUEST_INVALID_RECOVERY_CODE")
	verify(s.client(), "user", token, "recovery_code", fresh[0]).want(t, 201, "")
	if eventsOf(t, db, m.id, "recovery_codes_regenerated") != 1 {
		t.Error("no recovery_codes_regenerated event")
	}
	scanForSecrets(t, db, fresh)
}

// scanForSecrets fails t when any row of any table, in its JSON text
// form, holds one of secrets: as given, lowercased, without dashes, or
// (for a base32 TOTP secret) its raw bytes in hex, as bytea shows them.
func scanForSecrets(t *testing.T, db *sqlx.DB, secrets []string) {
	t.Helper()
	var needles []string
	for _, sec := range secrets {
		plain := strings.ReplaceAll(sec, "-", "")
		needles = append(needles, sec, strings.ToLower(sec), plain, strings.ToLower(plain))
		if raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(sec); err == nil {
			needles = append(needles, hex.EncodeToString(raw))
		}
	}
	var tables []string
	if err := db.SelectContext(t.Context(), &tables, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, table := range tables {
		var texts []string
		if err := db.SelectContext(t.Context(), &texts, `SELECT row_to_json(t)::text FROM `+table+` t`); err != nil {
			t.Fatal(err)
		}
		rows += len(texts)
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("table %s holds %q in plain text", table, n)
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("the scan read no row")
	}
}
