package main

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// newTestClock returns the clock of a test server, moved by the test
// instead of waiting: TOTP codes are computed for the times it is set to.
// It starts at the current time, in the middle of a 30-second step so that
// a code computed now stays the current one while the test does not move
// the clock.
func newTestClock() *testclock.Clock {
	now := time.Now().UTC().Truncate(time.Microsecond)
	return testclock.At(now.Add(-time.Duration(now.Unix()%30)*time.Second + 15*time.Second))
}

// mfaServer starts a server on a test clock, with testEnv and overrides,
// and enrols a web user's TOTP there.
func mfaServer(t *testing.T, overrides ...string) (*testServer, *testclock.Clock, *mfaUser) {
	t.Helper()
	clock := newTestClock()
	s := startServerClock(t, testEnv(t, overrides...), clock.Now)
	return s, clock, enroll(t, register(t, s.client(), "web"), clock, "user")
}

// totpAt computes the RFC 6238 code of a base32 secret at t (SHA-1, six
// digits, 30-second steps) with accountstest's arithmetic, written from
// the RFC rather than with the library the server uses.
func totpAt(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	return accountstest.TOTPCode(t, secret, at)
}

var recoveryCodeRe = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$`)

// mfaUser is a user with a confirmed TOTP, and what its enrolment showed.
type mfaUser struct {
	*registered
	secret string
	codes  []string
}

// enroll sets TOTP up for u through the API at clock's time: enroll, then
// confirm with the current code. u's tokens become the confirmed
// session's.
func enroll(t testing.TB, u *registered, clock *testclock.Clock, owner string) *mfaUser {
	t.Helper()
	base := "/v1/" + owner + "s/mfa/totp/"
	auth := []string{"Authorization", "jwt-" + owner + " " + u.token}
	e := u.c.call(http.MethodPost, base+"enroll", nil, auth...).want(t, 200, "")
	secret := e.str("secret")
	r := u.c.call(http.MethodPost, base+"confirm", map[string]any{"code": totpAt(t, secret, clock.Now())}, auth...).want(t, 200, "")
	m := &mfaUser{registered: u, secret: secret, codes: strs(r.Body["recoveryCodes"])}
	u.token = r.str("token")
	if rt := r.str("refreshToken"); rt != "" {
		u.refresh = rt
	}
	return m
}

// firstStep logs in with the password at path and returns the mfaToken.
func firstStep(t testing.TB, s *testServer, path, email string, headers ...string) string {
	t.Helper()
	r := s.client().call(http.MethodPost, path, map[string]any{"email": email, "password": strongPassword}, headers...)
	if r.Status != 403 || r.str("mfaToken") == "" {
		t.Fatalf("first step at %s: %d %s, want MFA_REQUIRED", path, r.Status, r.Raw)
	}
	return r.str("mfaToken")
}

// verify sends the second step with c.
func verify(c *client, owner, mfaToken, method, code string, headers ...string) *apiResponse {
	c.t.Helper()
	return c.call(http.MethodPost, "/v1/"+owner+"s/mfa/verify", map[string]any{"mfaToken": mfaToken, "method": method, "code": code}, headers...)
}

// challengeOf reads the attempts and use of the challenge of mfaToken.
func challengeOf(t testing.TB, s *testServer, mfaToken string) (attempts int, used bool) {
	t.Helper()
	err := s.db().QueryRowxContext(t.Context(), `SELECT attempts, used_at IS NOT NULL FROM login_challenges WHERE token_hash = $1`,
		sha256Hex(mfaToken)).Scan(&attempts, &used)
	if err != nil {
		t.Fatal(err)
	}
	return attempts, used
}

// strs reads a JSON array of strings, in order.
func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

// checkQRCode checks that an enrolment's qrCode is a PNG data URL of a
// square image (the browser test decodes it as a QR code).
func checkQRCode(t testing.TB, dataURL string) {
	t.Helper()
	b64, ok := strings.CutPrefix(dataURL, "data:image/png;base64,")
	raw, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil {
		t.Fatalf("qrCode %.40q is not a PNG data URL (%v)", dataURL, err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil || img.Bounds().Dx() != img.Bounds().Dy() || img.Bounds().Dx() < 100 {
		t.Fatalf("qrCode: %v, %v", img, err)
	}
}
