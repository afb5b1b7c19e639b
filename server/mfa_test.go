package main

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTOTPEnrolment: the HTTP answers of the TOTP setup (the engine's
// TestTOTPEnrolment checks what it changes): the status before and after,
// the enrolment's fields and QR code, 400 for a wrong confirmation, 200
// with ten recovery codes and the continued session's tokens (amr pwd,
// otp; aal 2 in the list), the earlier access tokens refused, and 400 for
// confirming or enrolling again.
func TestTOTPEnrolment(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t, "MFA_ISSUER=Acme Test"), clock.Now)
	u := register(t, s.client(), "app")
	other := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	st := u.c.call(http.MethodGet, "/v1/users/mfa/status", nil, u.auth()...).want(t, 200, "").obj("mfa")
	if st["enabled"] != false || len(st["methods"].([]any)) != 0 || st["totpConfirmedAt"] != nil || st["recoveryCodesRemaining"] != float64(0) || st["passkeys"] != float64(0) {
		t.Fatalf("status before: %v", st)
	}
	e := u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...).want(t, 200, "")
	secret, link := e.str("secret"), e.str("otpauthUrl")
	parsed, err := url.Parse(link)
	if err != nil || parsed.Scheme != "otpauth" || parsed.Query().Get("secret") != secret || parsed.Query().Get("issuer") != "Acme Test" {
		t.Errorf("otpauthUrl %q", link)
	}
	if e.str("issuer") != "Acme Test" || e.str("accountName") != u.email || e.Body["digits"] != float64(6) || e.Body["period"] != float64(30) || e.str("algorithm") != "SHA1" {
		t.Errorf("enrolment %s", e.Raw)
	}
	checkQRCode(t, e.str("qrCode"))
	confirm := func(code string) *apiResponse {
		return u.c.call(http.MethodPost, "/v1/users/mfa/totp/confirm", map[string]any{"code": code}, u.auth()...)
	}
	confirm("12345").want(t, 400, "USER_BAD_REQUEST_INVALID_TOTP_CODE")
	r := confirm(totpAt(t, secret, clock.Now())).want(t, 200, "")
	codes := strs(r.Body["recoveryCodes"])
	if len(codes) != 10 || r.str("refreshToken") == "" || r.obj("user")["mfaEnabled"] != true {
		t.Fatalf("confirmation %s", r.Raw)
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
	confirm(totpAt(t, secret, clock.Now())).want(t, 400, "USER_BAD_REQUEST_TOTP_NOT_PENDING")
	u.c.call(http.MethodPost, "/v1/users/mfa/totp/enroll", nil, u.auth()...).want(t, 400, "USER_BAD_REQUEST_TOTP_ALREADY_ENABLED")
	st = u.c.call(http.MethodGet, "/v1/users/mfa/status", nil, u.auth()...).want(t, 200, "").obj("mfa")
	if st["enabled"] != true || !slices.Equal(toStrings(st["methods"]), []string{"recovery_code", "totp"}) || st["recoveryCodesRemaining"] != float64(10) || st["totpConfirmedAt"] == nil {
		t.Errorf("status after: %v", st)
	}
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

// TestVerifyRefusals: the HTTP answers of refused second steps (the
// engine's TestVerifyRefusals checks the attempts, the burn and the
// expiry): 400 INVALID_MFA_TOKEN for malformed handles, 400 invalid
// arguments without a handle or with an unknown method, each wrong factor
// its own 400, and 401 for a caller holding a valid user token, as at
// login.
func TestVerifyRefusals(t *testing.T) {
	t.Parallel()
	// Wrong codes slow the account down for their client: the last
	// requests come from another address.
	s, clock, m := mfaServer(t, "TRUST_PROXY=true")
	clock.Advance(30 * time.Second)
	token := firstStep(t, s, "/v1/users/login", m.email)
	c := s.client()
	for _, bad := range []string{"abc", strings.ToUpper(token), token + "0", strings.Repeat("0", 64)} {
		verify(c, "user", bad, "totp", totpAt(t, m.secret, clock.Now())).want(t, 400, "USER_BAD_REQUEST_INVALID_MFA_TOKEN")
	}
	c.call(http.MethodPost, "/v1/users/mfa/verify", map[string]any{"method": "totp", "code": "123456"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	verify(c, "user", token, "sms", "123456").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	for _, w := range []struct{ method, code, want string }{
		{"totp", "abcdef", "USER_BAD_REQUEST_INVALID_TOTP_CODE"},
		{"recovery_code", "not-a-code", "USER_BAD_REQUEST_INVALID_RECOVERY_CODE"},
		{"webauthn", "", "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE"},
	} {
		verify(c, "user", token, w.method, w.code).want(t, 400, w.want)
	}
	// A caller holding a valid user token is refused, as at login.
	other := xff("203.0.113.61")
	token = firstStep(t, s, "/v1/users/login", m.email, other...)
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), append(m.auth(), other...)...).want(t, 401, "UNAUTHORIZED")
	verify(c, "user", token, "totp", totpAt(t, m.secret, clock.Now()), other...).want(t, 201, "")
}

// TestRecoveryCodes: the HTTP answers of recovery codes (the engine's
// TestRecoveryCodes checks their rules and storage): 201 with
// recoveryCodesRemaining and amr pwd, rcv; 400 INVALID_RECOVERY_CODE for a
// used one; 200 with ten new codes from regenerate.
func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	s, _, m := mfaServer(t)
	r := verify(s.client(), "user", firstStep(t, s, "/v1/users/login", m.email), "recovery_code", m.codes[3]).want(t, 201, "")
	if r.Body["recoveryCodesRemaining"] != float64(9) {
		t.Errorf("answer %s: want recoveryCodesRemaining 9", r.Raw)
	}
	if c := jwtPayload(r.str("token")); !slices.Equal(strs(c["amr"]), []string{"pwd", "rcv"}) {
		t.Errorf("amr %v", c["amr"])
	}
	verify(s.client(), "user", firstStep(t, s, "/v1/users/login", m.email), "recovery_code", m.codes[3]).want(t, 400, "USER_BAD_REQUEST_INVALID_RECOVERY_CODE")
	u := m.registered
	u.token = r.str("token")
	fresh := strs(u.c.call(http.MethodPost, "/v1/users/mfa/recoverycodes/regenerate", nil, u.auth()...).want(t, 200, "").Body["recoveryCodes"])
	if len(fresh) != 10 {
		t.Fatalf("new set %v", fresh)
	}
	for _, c := range fresh {
		if !recoveryCodeRe.MatchString(c) {
			t.Errorf("recovery code %q is not xxxxx-xxxxx-xxxxx-xxxxx of Crockford base32", c)
		}
	}
}
