package main

import (
	"net/http"
	"testing"

	"github.com/descope/virtualwebauthn"
)

// TestWebAuthnOptionsFlood: the passwordless login options and a second
// step's options each write a challenge row; one client's calls of each
// are bounded (AUTH_RATE_LIMIT_MAX × optionsFactor per window, then 429 with
// Retry-After), so a flood from one address cannot grow the table past
// that bound, while a user at another address still logs in with a
// passkey and completes a second step with one.
func TestWebAuthnOptionsFlood(t *testing.T) {
	t.Parallel()
	s := startServer(t, passkeyEnv(t, "TRUST_PROXY=true", "AUTH_RATE_LIMIT_MAX=2", "AUTH_RATE_LIMIT_WINDOW=1h"), "api")
	const bound = 2 * optionsFactor
	attacker := s.client()
	u := register(t, s.client(), "web")
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	addPasskey(t, userOwner(u), d, "Phone")
	mfaToken := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
		xff("198.51.100.9")...).want(t, 403, "USER_FORBIDDEN_MFA_REQUIRED").str("mfaToken")

	flood := func(path string, args any, purpose string) {
		t.Helper()
		for i := range bound + 5 {
			r := attacker.call(http.MethodPost, path, args, xff("203.0.113.7")...)
			if i < bound {
				r.want(t, 200, "")
				continue
			}
			r.want(t, 429, "TOO_MANY_REQUESTS")
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("%s: 429 without Retry-After", path)
			}
		}
		var n int
		if err := s.db().GetContext(t.Context(), &n, `SELECT count(*) FROM webauthn_challenges WHERE purpose = $1`, purpose); err != nil {
			t.Fatal(err)
		}
		if n > bound {
			t.Errorf("%s: %d challenges of one client, want at most %d", path, n, bound)
		}
	}
	flood("/v1/users/passkeys/loginoptions", nil, "login")
	flood("/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": mfaToken}, "second_factor")

	passkeyLogin(t, s, "user", d, xff("192.0.2.44")...).want(t, 201, "")
	c := s.client()
	second := c.call(http.MethodPost, "/v1/users/mfa/webauthnoptions", map[string]any{"mfaToken": mfaToken}, xff("198.51.100.9")...).
		want(t, 200, "")
	c.call(http.MethodPost, "/v1/users/mfa/verify", map[string]any{"mfaToken": mfaToken, "method": "webauthn",
		"challengeId": second.str("challengeId"), "credential": d.get(t, second.obj("options"))}, xff("198.51.100.9")...).
		want(t, 201, "")
}
