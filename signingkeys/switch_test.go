package signingkeys_test

import (
	"testing"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/internal/tokenforge"
)

var switchSecret = []byte("a secret of at least thirty-two bytes")

// hs256At mints an HS256 token with the secret, issued at iat and
// expiring at exp.
func hs256At(iat, exp time.Time) string {
	return tokenforge.Forge(tokenforge.Header("HS256", ""), map[string]any{
		"sub": ownerID.String(), "sid": session.String(), "type": "user", "tokenVersion": 1,
		"iat": iat.Unix(), "exp": exp.Unix(), "iss": "actionkit", "aud": "user-web",
	}, tokenforge.HMAC(switchSecret))
}

// TestHS256AfterTheSwitchAcrossRotations: the ring tells the activation of
// its oldest published key as the switch moment; an HS256 token of before
// it verifies, one minted after it does not, and once the first key is
// unpublished (and then deleted) the later key that became the oldest
// admits no HS256 token either, since every token of one lifetime after
// its activation has expired.
func TestHS256AfterTheSwitchAcrossRotations(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	t0 := c.Now()
	ctx := testCtx(t)
	open := func() *auth.Tokens {
		t.Helper()
		r, _ := ring(t, db, c, auth.EdDSA, hexKey)
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
		tk := &auth.Tokens{Alg: auth.EdDSA, Keys: r, Secret: switchSecret, Now: c.Now, TTL: 15 * time.Minute}
		if err := tk.Validate(); err != nil {
			t.Fatal(err)
		}
		return tk
	}
	check := func(tk *auth.Tokens, name, token string, ok bool) {
		t.Helper()
		if _, err := tk.Parse("user", token); (err == nil) != ok {
			t.Errorf("%s: Parse = %v, want ok=%v", name, err, ok)
		}
	}
	tk := open()
	c.Advance(time.Minute)
	check(tk, "issued before the switch", hs256At(t0.Add(-time.Minute), t0.Add(14*time.Minute)), true)
	check(tk, "minted after the switch", hs256At(t0.Add(time.Second), t0.Add(15*time.Minute)), false)
	check(tk, "before the switch, a long expiry", hs256At(t0.Add(-time.Minute), t0.Add(time.Hour)), false)

	c.Advance(time.Hour)
	r, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if rotated, err := r.Rotate(ctx); !rotated || err != nil {
		t.Fatalf("Rotate: %v, %v", rotated, err)
	}
	second := c.Now().Add(15 * time.Minute) // the new key activates then
	for _, wait := range []time.Duration{32 * time.Minute, 25 * time.Hour} {
		c.Advance(wait) // past the first key's publication, then past its deletion
		tk = open()
		for _, iat := range []time.Time{t0, second} {
			check(tk, "an HS256 token within a lifetime of "+iat.Format(time.TimeOnly), hs256At(iat, iat.Add(15*time.Minute)), false)
		}
	}
	for _, k := range keyRows(t, db) {
		if !k.ActivatedAt.After(t0) {
			t.Errorf("key %s activated at %s: want the first key deleted", k.Kid, k.ActivatedAt)
		}
	}
}
