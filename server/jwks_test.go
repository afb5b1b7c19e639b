package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/actionkit/actionkit/models"
)

// publishedKeys fetches the key set and returns its JWKs by kid.
func publishedKeys(t testing.TB, c *client) map[string]map[string]any {
	t.Helper()
	r := c.call(http.MethodGet, jwksPath, nil)
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", jwksPath, r.Status, r.Raw)
	}
	if cc, ct := r.Header.Get("Cache-Control"), r.Header.Get("Content-Type"); cc != "public, max-age=300" || ct != "application/json" {
		t.Errorf("Cache-Control %q, Content-Type %q", cc, ct)
	}
	keys, ok := r.Body["keys"].([]any)
	if !ok {
		t.Fatalf("not a key set: %s", r.Raw)
	}
	out := map[string]map[string]any{}
	for _, k := range keys {
		jwk := k.(map[string]any)
		out[jwk["kid"].(string)] = jwk
	}
	return out
}

// accessJWKs returns the access-token keys of a key set (publishedKeys),
// leaving out the RS256 ID-token keys.
func accessJWKs(keys map[string]map[string]any) map[string]map[string]any {
	out := maps.Clone(keys)
	maps.DeleteFunc(out, func(_ string, jwk map[string]any) bool { return jwk["alg"] == "RS256" })
	return out
}

// keyCounts returns how many keys of each purpose the database holds,
// counting only the current ones when current.
func keyCounts(t testing.TB, db *sqlx.DB, current bool) map[string]int {
	t.Helper()
	var rows []struct {
		Purpose string `db:"purpose"`
		N       int    `db:"n"`
	}
	if err := db.SelectContext(t.Context(), &rows, `SELECT purpose, count(*) AS n FROM signing_keys
		WHERE retired_at IS NULL OR NOT $1 GROUP BY purpose`, current); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Purpose] = r.N
	}
	return out
}

// oneOfEach is keyCounts of one access-token key and one ID-token key.
var oneOfEach = map[string]int{models.SigningKeyAccess: 1, models.SigningKeyIDToken: 1}

// tokenKid returns the alg and kid of a token's header.
func tokenKid(token string) (alg, kid string) {
	h, _ := tokenforge.Decode(token)
	kid, _ = h["kid"].(string)
	return h["alg"].(string), kid
}

func TestJWKSEmptyWithHS256(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	c := s.client()
	if keys := publishedKeys(t, c); len(keys) != 0 {
		t.Fatalf("HS256 publishes %v", keys)
	}
	if h := c.call(http.MethodHead, jwksPath, nil); h.Status != 200 || h.Raw != "" {
		t.Errorf("HEAD: %d with %q", h.Status, h.Raw)
	}
	u := register(t, c, "web")
	if alg, kid := tokenKid(u.token); alg != "HS256" || kid != "" {
		t.Errorf("an HS256 token has alg %s and kid %q", alg, kid)
	}
}

// With EdDSA, tokens carry the kid of the one published key and every
// forged token is refused: alg none, HS256 with the public key as its
// secret (raw, as in the JWK, PKIX DER and PEM), an unknown kid, another
// key under the kid, no kid, ES256 under the EdDSA kid, a tampered
// payload; and so is a fresh token of a key retired long ago.
func TestEdDSAAccessTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "ACCESS_TOKEN_ALG=EdDSA"), "api")
	c := s.client()
	u := register(t, c, "web")
	alg, kid := tokenKid(u.token)
	keys := accessJWKs(publishedKeys(t, c))
	jwk := keys[kid]
	if alg != "EdDSA" || len(keys) != 1 || jwk == nil {
		t.Fatalf("token alg %s kid %s; published %v", alg, kid, keys)
	}
	if jwk["kty"] != "OKP" || jwk["crv"] != "Ed25519" || jwk["alg"] != "EdDSA" || jwk["use"] != "sig" || len(jwk) != 6 {
		t.Errorf("JWK = %v", jwk)
	}
	u.read(t).want(t, 200, "")
	x, err := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for name, token := range tokenforge.Attacks(u.token, kid, ed25519.PublicKey(x)) {
		r := c.call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+token)
		if r.Status != 401 || r.Body["error"] != "UNAUTHORIZED" {
			t.Errorf("%s: got %d %s", name, r.Status, r.Raw)
		}
	}
	old := retiredKey(t, s, time.Hour)
	forged := tokenforge.Forge(tokenforge.Header("EdDSA", old.ID), freshClaims(t, u.token), tokenforge.Ed25519(old.Private.(ed25519.PrivateKey)))
	c.call(http.MethodGet, "/v1/users/read", nil, "Authorization", "jwt-user "+forged).want(t, 401, "UNAUTHORIZED")
	if _, ok := publishedKeys(t, c)[old.ID]; ok {
		t.Error("a key retired an hour ago is published")
	}
	u.read(t).want(t, 200, "")
}

// freshClaims returns the claims of token with iat now and exp in 15 min.
func freshClaims(t testing.TB, token string) map[string]any {
	_, claims := tokenforge.Decode(token)
	now := time.Now().Unix()
	claims["iat"], claims["exp"] = now, now+900
	return claims
}

// retiredKey stores an Ed25519 key retired ago (its private part sealed
// in nothing the server could open: it never needs it) and returns it.
func retiredKey(t testing.TB, s *testServer, ago time.Duration) *auth.Key {
	t.Helper()
	k, err := auth.GenerateKey(auth.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	if k.ID, err = jwks.Thumbprint(k.Public); err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(k.Public)
	retired := time.Now().Add(-ago).UTC()
	sqlExec(t, s.db(), `INSERT INTO signing_keys (id, kid, alg, public_key, private_key_ciphertext, created_at, activated_at, retired_at)
		VALUES ($1, $2, 'EdDSA', $3, '\x00', $4, $4, $5)`, uuid.Must(uuid.NewV7()), k.ID, der, retired.Add(-time.Hour), retired)
	return k
}

// Switching a running deployment from HS256 to EdDSA logs nobody out:
// with both configurations running at once, each accepts the other's
// tokens; once every instance runs EdDSA, HS256 tokens are accepted while
// ACCESS_TOKEN_SECRET is set, and refused without it.
func TestSwitchFromHS256ToEdDSA(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	hs := startServer(t, env, "api")
	u := register(t, hs.client(), "web")
	edEnv := maps.Clone(env)
	edEnv["ACCESS_TOKEN_ALG"] = "EdDSA"
	ed := startServer(t, edEnv, "api")
	edUser := &registered{c: ed.client(), token: u.token}
	edUser.read(t).want(t, 200, "")
	r := ed.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	edToken := r.str("token")
	if alg, kid := tokenKid(edToken); alg != "EdDSA" || kid == "" {
		t.Fatalf("a token of the EdDSA instance: alg %s kid %q", alg, kid)
	}
	hsUser := &registered{c: hs.client(), token: edToken}
	hsUser.read(t).want(t, 200, "") // the HS256 instance loads the new key on its unknown kid
	if keys := accessJWKs(publishedKeys(t, hs.client())); len(keys) != 1 {
		t.Errorf("the HS256 instance publishes %d access-token keys, want the EdDSA instance's one", len(keys))
	}
	hs.stop()
	ed.stop()

	noSecret := maps.Clone(edEnv)
	delete(noSecret, "ACCESS_TOKEN_SECRET")
	after := startServer(t, noSecret, "api")
	if r := (&registered{c: after.client(), token: edToken}).read(t); r.Status != 200 {
		t.Fatalf("%d %s\n%s", r.Status, r.Raw, after.logs.String())
	}
	(&registered{c: after.client(), token: u.token}).read(t).want(t, 401, "UNAUTHORIZED")
}

// A worker and a clock left on the default HS256 beside an EdDSA API
// leave the keys alone: the API's key stays current, and its tokens and
// logins keep working.
func TestHS256WorkerLeavesTheKeys(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "ACCESS_TOKEN_ALG=EdDSA")
	ed := startServer(t, env, "api")
	u := register(t, ed.client(), "web")
	hsEnv := maps.Clone(env)
	delete(hsEnv, "ACCESS_TOKEN_ALG")
	hsEnv["LOG_LEVEL"] = "info"
	for _, role := range []string{"worker", "clock"} {
		p := startProcess(t, hsEnv, role)
		poll.Until(t, 60*time.Second, "the "+role+" past its signing keys", func() bool {
			return strings.Contains(p.logs.String(), `"msg":"access tokens`)
		})
	}
	if current := keyCounts(t, ed.db(), true); !maps.Equal(current, oneOfEach) {
		t.Fatalf("current keys %v, want the API's two", current)
	}
	u.read(t).want(t, 200, "")
	r := ed.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	if alg, kid := tokenKid(r.str("token")); alg != "EdDSA" || kid == "" {
		t.Fatalf("a login after the HS256 worker started: alg %s kid %q", alg, kid)
	}
}

// A restart with another DATA_ENCRYPTION_KEY is a start-up error naming
// it, and makes no key.
func TestStartWithAnotherDataKey(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "ACCESS_TOKEN_ALG=EdDSA")
	s := startServer(t, env, "api")
	register(t, s.client(), "web")
	s.stop()
	other := maps.Clone(env)
	other["DATA_ENCRYPTION_KEY"] = strings.Repeat("ab", 32)
	logs := &syncbuf.Buffer{}
	code := run(t.Context(), &environment{args: []string{"api"}, getenv: func(k string) string { return other[k] }, stdout: logs, stderr: logs})
	if code != 1 || !strings.Contains(logs.String(), "does not open under DATA_ENCRYPTION_KEY") {
		t.Fatalf("exit %d:\n%s", code, logs.String())
	}
	if n := keyCounts(t, s.db(), false); !maps.Equal(n, oneOfEach) {
		t.Fatalf("keys %v, want one of each", n)
	}
}

// Three processes starting at once on an empty table make one
// access-token key and one RS256 ID-token key.
func TestProcessesStartingAtOnceMakeOneKey(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "ACCESS_TOKEN_ALG=EdDSA", "LOG_LEVEL=info")
	var procs []*process
	for range 3 { // the clock role returns from startProcess at once
		procs = append(procs, startProcess(t, env, "clock"))
	}
	for _, p := range procs {
		poll.Until(t, 60*time.Second, "the keys loaded", func() bool { return strings.Contains(p.logs.String(), "signing keys loaded") })
	}
	db, err := models.Open(t.Context(), env["DATABASE_URL"], 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := keyCounts(t, db, false); !maps.Equal(n, oneOfEach) {
		t.Fatalf("keys %v, want one of each", n)
	}
	var alg string
	if err := db.GetContext(t.Context(), &alg, `SELECT alg FROM signing_keys WHERE purpose = 'id_token'`); err != nil || alg != "RS256" {
		t.Fatalf("the ID-token key's alg %q (%v)", alg, err)
	}
}

// Two API processes, a worker and two clocks on one database, rotating
// every 4 s: tokens of A verify on B before and after a rotation, tokens
// of the old key keep verifying, new tokens carry the new kid, both
// publish the same keys, and no rotation period has two keys.
func TestRotationAcrossProcesses(t *testing.T) {
	t.Parallel()
	const rotation = 4 * time.Second
	env := testEnv(t, "ACCESS_TOKEN_ALG=EdDSA", "SIGNING_KEY_ROTATION=4s", "SIGNING_KEY_RELOAD=100ms", "LOG_LEVEL=info")
	a := startProcess(t, env, "api").asServer(t)
	b := startProcess(t, env, "api").asServer(t)
	startProcess(t, env, "worker")
	startProcess(t, env, "clock")
	startProcess(t, env, "clock")
	u := register(t, a.client(), "web")
	_, first := tokenKid(u.token)
	onB := &registered{c: b.client(), token: u.token}
	onB.read(t).want(t, 200, "")

	var rotated string
	poll.Until(t, 60*time.Second, "a token of a new key", func() bool {
		r := a.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
		rotated = r.str("token")
		_, kid := tokenKid(rotated)
		return kid != first
	})
	(&registered{c: b.client(), token: rotated}).read(t).want(t, 200, "")
	onB.read(t).want(t, 200, "")
	u.read(t).want(t, 200, "")
	poll.Until(t, 10*time.Second, "A and B publish the same keys", func() bool {
		ka, kb := publishedKeys(t, a.client()), publishedKeys(t, b.client())
		return slices.Equal(slices.Sorted(maps.Keys(ka)), slices.Sorted(maps.Keys(kb)))
	})
	checkOneKeyPerRotation(t, env["DATABASE_URL"], rotation)
}

// checkOneKeyPerRotation fails unless, for the access-token keys and the
// ID-token keys alike, there was a rotation and every key was made at
// least one rotation after the activation of the key before it.
func checkOneKeyPerRotation(t testing.TB, dsn string, rotation time.Duration) {
	t.Helper()
	db, err := models.Open(t.Context(), dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, purpose := range []string{models.SigningKeyAccess, models.SigningKeyIDToken} {
		var rows []struct {
			Created   time.Time `db:"created_at"`
			Activated time.Time `db:"activated_at"`
		}
		if err := db.SelectContext(t.Context(), &rows, `SELECT created_at, activated_at FROM signing_keys
			WHERE purpose = $1 ORDER BY activated_at`, purpose); err != nil {
			t.Fatal(err)
		}
		if len(rows) < 2 {
			t.Fatalf("%d %s keys, want a rotation", len(rows), purpose)
		}
		for i := 1; i < len(rows); i++ {
			if gap := rows[i].Created.Sub(rows[i-1].Activated); gap < rotation {
				t.Errorf("%s key %d made %v after the activation of key %d, within one rotation", purpose, i, gap, i-1)
			}
		}
	}
}
