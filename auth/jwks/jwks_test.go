package jwks_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/internal/tokenforge"
)

var (
	t0      = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	ownerID = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	session = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01")
)

// issuer plays the actionkit server: it signs with its keys and serves
// their key set, which a test can change or take down.
type issuer struct {
	t        *testing.T
	clock    *testclock.Clock
	keys     []*auth.Key
	doc      atomic.Pointer[[]byte]
	down     atomic.Bool
	requests atomic.Int64
	srv      *httptest.Server
}

func newIssuer(t *testing.T, c *testclock.Clock, algs ...string) *issuer {
	is := &issuer{t: t, clock: c}
	for _, alg := range algs {
		is.add(alg)
	}
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		is.requests.Add(1)
		if is.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*is.doc.Load())
	}))
	t.Cleanup(is.srv.Close)
	return is
}

// add makes a key of alg, publishes it and returns it.
func (is *issuer) add(alg string) *auth.Key {
	k, err := auth.GenerateKey(alg)
	if err != nil {
		is.t.Fatal(err)
	}
	if k.ID, err = jwks.Thumbprint(k.Public); err != nil {
		is.t.Fatal(err)
	}
	is.keys = append(is.keys, k)
	is.publish(is.keys...)
	return k
}

// publish serves exactly keys.
func (is *issuer) publish(keys ...*auth.Key) {
	raw, err := jwks.Marshal(keys)
	if err != nil {
		is.t.Fatal(err)
	}
	is.doc.Store(&raw)
}

func (is *issuer) publishRaw(doc string) { raw := []byte(doc); is.doc.Store(&raw) }

// sign issues a user-web token with key k.
func (is *issuer) sign(k *auth.Key) string {
	set, err := auth.NewKeySet(k)
	if err != nil {
		is.t.Fatal(err)
	}
	tk := &auth.Tokens{Alg: k.Alg, Keys: &auth.StaticKeys{Set: set}, Now: is.clock.Now}
	token, _, err := tk.Issue("user", ownerID, session, 2, action.Web)
	if err != nil {
		is.t.Fatal(err)
	}
	return token
}

func newVerifier(t *testing.T, is *issuer, cfg jwks.Config) (*jwks.Verifier, *syncbuf.Buffer) {
	t.Helper()
	l := &syncbuf.Buffer{}
	cfg.URL = is.srv.URL + "/.well-known/jwks.json"
	cfg.Now = is.clock.Now
	cfg.Logger = slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v, err := jwks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v, l
}

func TestVerifyEachAlgorithm(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA, auth.ES256)
	v, _ := newVerifier(t, is, jwks.Config{})
	ctx := context.Background()
	for _, k := range is.keys {
		token := is.sign(k)
		cl, err := v.Verify(ctx, "user", token)
		if err != nil || cl.Subject != ownerID || cl.SessionID != session || cl.Client != action.Web || cl.KeyID != k.ID {
			t.Fatalf("%s: Verify = %+v, %v", k.Alg, cl, err)
		}
		if _, err := v.Verify(ctx, "admin", token); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: a user token verified as an admin's: %v", k.Alg, err)
		}
	}
	if n := is.requests.Load(); n != 1 {
		t.Errorf("%d fetches of the key set, want 1", n)
	}
}

// Every forged token is refused, and so is a good token of an algorithm
// the verifier does not accept, of another issuer, or expired.
func TestVerifierRefusals(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA, auth.ES256)
	ed, ec := is.keys[0], is.keys[1]
	v, _ := newVerifier(t, is, jwks.Config{Algorithms: []string{auth.EdDSA}})
	both, _ := newVerifier(t, is, jwks.Config{})
	ctx := context.Background()
	good := is.sign(ed)
	if _, err := v.Verify(ctx, "user", good); err != nil {
		t.Fatal(err)
	}
	bad := tokenforge.Attacks(good, ed.ID, ed.Public.(ed25519.PublicKey))
	bad["ES256 signed by a published ES256 key"] = is.sign(ec) // ES256 is not accepted here
	other := &auth.Tokens{Alg: auth.EdDSA, Keys: staticKeys(t, ed), Issuer: "someone-else", Now: c.Now}
	bad["another issuer"], _, _ = other.Issue("user", ownerID, session, 2, action.Web)
	hs, _ := auth.NewTokens([]byte("a shared secret of at least 32 bytes.."), "", 0, c.Now)
	bad["HS256 with a secret"], _, _ = hs.Issue("user", ownerID, session, 2, action.Web)
	for name, token := range bad {
		if _, err := v.Verify(ctx, "user", token); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: Verify = %v, want ErrInvalidToken", name, err)
		}
		if _, err := both.Verify(ctx, "user", token); !errors.Is(err, auth.ErrInvalidToken) && name != "ES256 signed by a published ES256 key" {
			t.Errorf("%s, EdDSA and ES256 accepted: Verify = %v, want ErrInvalidToken", name, err)
		}
	}
	c.Advance(15*time.Minute + auth.ClockSkew)
	if _, err := v.Verify(ctx, "user", good); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("an expired token: Verify = %v", err)
	}
}

func staticKeys(t *testing.T, keys ...*auth.Key) *auth.StaticKeys {
	set, err := auth.NewKeySet(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return &auth.StaticKeys{Set: set}
}

// A new key is fetched when its first token arrives; a flood of unknown
// kids costs one fetch per MinRefetch; a key no longer published stops
// verifying once the set is fetched again.
func TestRotationAndRefetchLimit(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	old := is.keys[0]
	v, _ := newVerifier(t, is, jwks.Config{MinRefetch: time.Minute, MaxAge: time.Hour})
	ctx := context.Background()
	oldToken := is.sign(old)
	if _, err := v.Verify(ctx, "user", oldToken); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Minute)
	next := is.add(auth.EdDSA)
	if _, err := v.Verify(ctx, "user", is.sign(next)); err != nil {
		t.Fatalf("a token of the new key: %v", err)
	}
	if n := is.requests.Load(); n != 2 {
		t.Fatalf("%d fetches after a new kid, want 2", n)
	}
	attacks := tokenforge.Attacks(oldToken, old.ID, old.Public.(ed25519.PublicKey))
	for range 50 {
		if _, err := v.Verify(ctx, "user", attacks["unknown kid"]); !errors.Is(err, auth.ErrUnknownKey) {
			t.Fatalf("an unknown kid: %v", err)
		}
	}
	if n := is.requests.Load(); n != 2 {
		t.Fatalf("%d fetches after 50 unknown kids within MinRefetch, want still 2", n)
	}
	// The old key leaves the set (its last token expired on the server).
	is.publish(next)
	c.Advance(time.Minute)
	if _, err := v.Verify(ctx, "user", attacks["unknown kid"]); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("an unknown kid: %v", err)
	}
	if n := is.requests.Load(); n != 3 {
		t.Fatalf("%d fetches a minute later, want 3", n)
	}
	if _, err := v.Verify(ctx, "user", oldToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a token of a key no longer published: %v", err)
	}
}

// With the key set endpoint down, the cached keys go on verifying and the
// log says so; an unknown kid is refused; the next success is used.
func TestEndpointDown(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	v, l := newVerifier(t, is, jwks.Config{MinRefetch: time.Minute, MaxAge: 5 * time.Minute})
	ctx := context.Background()
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	is.down.Store(true)
	c.Advance(6 * time.Minute) // the set is due for a background fetch
	token := is.sign(is.keys[0])
	if _, err := v.Verify(ctx, "user", token); err != nil {
		t.Fatalf("with the endpoint down: %v", err)
	}
	poll.Until(t, 10*time.Second, "the log of the cached keys", func() bool { return strings.Contains(l.String(), "verifying with the cached keys") })
	if !strings.Contains(l.String(), `"level":"WARN"`) || !strings.Contains(l.String(), "status 503") {
		t.Errorf("log: %s", l.String())
	}
	if err := v.Refresh(ctx); err == nil {
		t.Error("Refresh with the endpoint down succeeded")
	}
	next := is.add(auth.EdDSA)
	c.Advance(2 * time.Minute)
	if _, err := v.Verify(ctx, "user", is.sign(next)); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("a new kid with the endpoint down: %v", err)
	}
	if _, err := v.Verify(ctx, "user", token); err != nil {
		t.Fatalf("the cached key after more failures: %v", err)
	}
	is.down.Store(false)
	c.Advance(2 * time.Minute)
	if _, err := v.Verify(ctx, "user", is.sign(next)); err != nil {
		t.Fatalf("a new kid once the endpoint is back: %v", err)
	}
}

// No key ever fetched: tokens are refused and the log says why.
func TestEndpointDownFromStart(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	is.down.Store(true)
	v, l := newVerifier(t, is, jwks.Config{})
	if _, err := v.Verify(context.Background(), "user", is.sign(is.keys[0])); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("Verify = %v", err)
	}
	if !strings.Contains(l.String(), "no key is cached") || !strings.Contains(l.String(), `"level":"ERROR"`) {
		t.Errorf("log: %s", l.String())
	}
}

// Keys that cannot be used are skipped, the others verify.
func TestKeySetParsing(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	good, err := jwks.Marshal(is.keys)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	k := doc.Keys[0]
	if len(k) != 6 || k["kty"] != "OKP" || k["crv"] != "Ed25519" || k["use"] != "sig" || k["alg"] != "EdDSA" || k["kid"] != is.keys[0].ID || k["x"] == nil {
		t.Fatalf("JWK = %v", k)
	}
	skipped := []string{
		`{"kty":"oct","kid":"sym","alg":"HS256","k":"c2VjcmV0"}`,
		`{"kty":"OKP","crv":"Ed25519","kid":"nokind","x":"` + k["x"].(string) + `"}`,
		`{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","alg":"EdDSA","x":"` + k["x"].(string) + `"}`,
		`{"kty":"OKP","crv":"Ed25519","kid":"priv","alg":"EdDSA","x":"` + k["x"].(string) + `","d":"AAAA"}`,
		`{"kty":"OKP","crv":"Ed25519","kid":"mislabelled","alg":"ES256","x":"` + k["x"].(string) + `"}`,
		`{"kty":"RSA","kid":"rsa","alg":"RS256","n":"AQAB","e":"AQAB"}`,
		`"not an object"`,
	}
	raw, _ := json.Marshal(k)
	is.publishRaw(`{"keys":[` + strings.Join(skipped, ",") + `,` + string(raw) + `,` + string(raw) + `]}`)
	v, l := newVerifier(t, is, jwks.Config{})
	if _, err := v.Verify(context.Background(), "user", is.sign(is.keys[0])); err != nil {
		t.Fatalf("the good key beside bad ones: %v", err)
	}
	if got := strings.Count(l.String(), "a key of the set is skipped"); got != len(skipped)+1 {
		t.Errorf("%d keys skipped, want %d (the duplicate too): %s", got, len(skipped)+1, l.String())
	}
	if got := len(v.Keys().Published()); got != 1 {
		t.Errorf("%d keys kept, want 1", got)
	}
	for _, doc := range []string{`[]`, `{"keys":null}`, `not json`} {
		is.publishRaw(doc)
		if err := v.Refresh(context.Background()); err == nil {
			t.Errorf("the answer %s was taken for a key set", doc)
		}
	}
}

func TestConfigRefused(t *testing.T) {
	for name, cfg := range map[string]jwks.Config{
		"no URL":              {},
		"a relative URL":      {URL: "/.well-known/jwks.json"},
		"another scheme":      {URL: "ftp://example.com/jwks.json"},
		"HS256 accepted":      {URL: "https://example.com/jwks.json", Algorithms: []string{auth.HS256}},
		"RS256 accepted":      {URL: "https://example.com/jwks.json", Algorithms: []string{"RS256"}},
		"nothing is accepted": {URL: "https://example.com/jwks.json", Algorithms: []string{}},
	} {
		if _, err := jwks.New(cfg); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	v, err := jwks.New(jwks.Config{URL: "https://example.com/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Keys().SigningKey(); !errors.Is(err, auth.ErrNoSigningKey) {
		t.Errorf("SigningKey = %v", err)
	}
}

// A fetch moments before (at start, or in the background) does not delay
// the first token of a new key: fetches for unknown kids have their own
// limit.
func TestNewKidRightAfterAFetch(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	v, _ := newVerifier(t, is, jwks.Config{})
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := is.add(auth.EdDSA)
	if _, err := v.Verify(context.Background(), "user", is.sign(next)); err != nil {
		t.Fatalf("the first token of a new key, right after a fetch: %v", err)
	}
}

// The server publishes its RS256 ID-token key beside the access-token
// keys: the verifier ignores it quietly (no warning on every fetch), and a
// token signed by it under its kid, whatever its alg header, is refused.
func TestIDTokenKeyIgnored(t *testing.T) {
	c := testclock.At(t0)
	is := newIssuer(t, c, auth.EdDSA)
	rs := is.add(auth.RS256)
	v, l := newVerifier(t, is, jwks.Config{})
	if _, err := v.Verify(context.Background(), "user", is.sign(is.keys[0])); err != nil {
		t.Fatalf("the EdDSA key beside the RS256 one: %v", err)
	}
	if got := v.Keys().Published(); len(got) != 1 || got[0].Alg != auth.EdDSA {
		t.Errorf("kept %d keys, want the EdDSA one", len(got))
	}
	if strings.Contains(l.String(), `"level":"WARN"`) || !strings.Contains(l.String(), "a key of an algorithm not accepted is ignored") {
		t.Errorf("log: %s", l.String())
	}
	_, payload := tokenforge.Decode(is.sign(is.keys[0]))
	priv := rs.Private.(*rsa.PrivateKey)
	for _, alg := range []string{auth.RS256, auth.EdDSA} {
		token := tokenforge.Forge(tokenforge.Header(alg, rs.ID), payload, tokenforge.RS256(priv))
		if _, err := v.Verify(context.Background(), "user", token); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s under the RS256 kid: %v", alg, err)
		}
	}
	raw, _ := json.Marshal(map[string]any{"kty": "RSA", "kid": rs.ID, "alg": "RS256", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(rs.Public.(*rsa.PublicKey).N.Bytes()), "e": "AQAB"})
	if k, err := jwks.ParseKey(raw, []string{auth.RS256}); err != nil || k.ID != rs.ID || k.Alg != auth.RS256 {
		t.Errorf("ParseKey allowing RS256: %v, %v", k, err)
	}
	if _, err := jwks.ParseKey(raw, []string{auth.EdDSA}); !errors.Is(err, jwks.ErrAlgNotAllowed) {
		t.Errorf("ParseKey not allowing RS256: %v", err)
	}
}
