package main

import (
	"maps"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/tokenforge"
)

// TestHS256AfterTheSwitch: once a deployment signs access tokens with
// EdDSA, an HS256 token made with ACCESS_TOKEN_SECRET is accepted only
// when it was issued before the switch and lives one lifetime at most:
// the sessions of before the switch go on, while a token minted with the
// secret since (or one before it with a long expiry) is refused.
func TestHS256AfterTheSwitch(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	hs := startServer(t, env, "api")
	u := register(t, hs.client(), "web")
	hs.stop()
	edEnv := maps.Clone(env)
	edEnv["ACCESS_TOKEN_ALG"] = "EdDSA"
	ed := startServer(t, edEnv, "api")
	read := func(token string) *apiResponse {
		return (&registered{c: ed.client(), token: token}).read(t)
	}
	read(u.token).want(t, 200, "")

	_, claims := tokenforge.Decode(u.token)
	iat, exp := int64(claims["iat"].(float64)), int64(claims["exp"].(float64))
	mint := func(iat, exp int64) string {
		c := maps.Clone(claims)
		c["iat"], c["exp"] = iat, exp
		return tokenforge.Forge(tokenforge.Header("HS256", ""), c, tokenforge.HMAC([]byte(env["ACCESS_TOKEN_SECRET"])))
	}
	read(mint(iat, exp)).want(t, 200, "") // as issued before the switch
	var switched time.Time
	if err := ed.db().GetContext(t.Context(), &switched, `SELECT min(activated_at) FROM signing_keys WHERE purpose = 'access'`); err != nil {
		t.Fatal(err)
	}
	since := switched.Unix() + 1 // a whole second after the first key signed
	read(mint(since, since+600)).want(t, 401, "UNAUTHORIZED")
	read(mint(iat, iat+int64(10*time.Hour/time.Second))).want(t, 401, "UNAUTHORIZED")
}
