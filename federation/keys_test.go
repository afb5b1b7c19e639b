package federation

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testKey is a signing key of a provider the test plays.
type testKey struct {
	priv *ecdsa.PrivateKey
	kid  string
}

func newTestKey(t *testing.T, kid string) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{priv: k, kid: kid}
}

func (k testKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"}
}

func (k testKey) sign(t *testing.T, payload string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv},
		(&jose.SignerOptions{}).WithHeader("kid", k.kid))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestKeysRefetchedOnUnknownKid: a key id the set lacks reads the set
// again at once, but not twice within KeyRefetchInterval; a known key id
// whose signature fails reads nothing.
func TestKeysRefetchedOnUnknownKid(t *testing.T) {
	a, b, c := newTestKey(t, "a"), newTestKey(t, "b"), newTestKey(t, "c")
	var (
		mu    sync.Mutex
		keys  = []jose.JSONWebKey{a.public()}
		reads atomic.Int32
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reads.Add(1)
		mu.Lock()
		defer mu.Unlock()
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: keys})
	}))
	defer srv.Close()
	now := time.Unix(1_700_000_000, 0)
	ks := &keySet{url: srv.URL, client: srv.Client(), now: func() time.Time { return now }}
	ctx := context.Background()
	check := func(step, token string, ok bool, wantReads int32) {
		t.Helper()
		_, err := ks.VerifySignature(ctx, token)
		if (err == nil) != ok {
			t.Errorf("%s: err %v, want ok=%v", step, err, ok)
		}
		if got := reads.Load(); got != wantReads {
			t.Errorf("%s: %d reads of the key set, want %d", step, got, wantReads)
		}
	}
	check("first token", a.sign(t, `{"n":1}`), true, 1)
	check("known key", a.sign(t, `{"n":2}`), true, 1)
	forged := newTestKey(t, "a").sign(t, `{"n":3}`)
	check("known kid, another key", forged, false, 1)
	mu.Lock()
	keys = append(keys, b.public())
	mu.Unlock()
	check("unknown kid within the interval", b.sign(t, `{"n":4}`), false, 1)
	now = now.Add(KeyRefetchInterval)
	check("unknown kid after the interval", b.sign(t, `{"n":5}`), true, 2)
	check("another unknown kid at once", c.sign(t, `{"n":6}`), false, 2)
	hs := "eyJhbGciOiJIUzI1NiIsImtpZCI6ImEifQ.eyJuIjo3fQ.c2lnbmF0dXJl"
	check("HS256", hs, false, 2)
}
