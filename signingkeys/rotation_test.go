package signingkeys_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/signingkeys"
)

// Two instances on one database through a rotation: the new key is
// published before it signs, tokens of the old key keep verifying on both
// until they expire, the old key is unpublished once its last token
// expired, and a token it signs after that is refused.
func TestRotationAcrossInstances(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	a, alog := ring(t, db, c, auth.EdDSA, hexKey)
	b, blog := ring(t, db, c, auth.EdDSA, hexKey)
	ctx := testCtx(t)
	for _, r := range []*signingkeys.Ring{a, b} {
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
		r.Start() // reloads every 50 ms of real time
		t.Cleanup(r.Stop)
	}
	ta, tb := tokens(t, a, c, auth.EdDSA), tokens(t, b, c, auth.EdDSA)
	_, first := issue(t, ta)
	oldKey, _ := a.SigningKey()

	c.Advance(59 * time.Minute)
	if rotated, err := a.Rotate(ctx); rotated || err != nil {
		t.Fatalf("Rotate before the key is due: %v, %v", rotated, err)
	}
	c.Advance(time.Minute)
	var wg sync.WaitGroup
	rotated := make([]bool, 2)
	for i, r := range []*signingkeys.Ring{a, b} {
		wg.Go(func() {
			var err error
			if rotated[i], err = r.Rotate(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Each key kind is rotated by one ring, not necessarily the same.
	if !rotated[0] && !rotated[1] {
		t.Fatalf("rotations %v, want one at least", rotated)
	}
	if n := len(keyRows(t, db)); n != 2 {
		t.Fatalf("%d keys after the rotation, want 2", n)
	}
	// The new key is published at once and signs 15 min (a quarter of the
	// rotation) later; the instance that did not rotate reloads it.
	for _, r := range []*signingkeys.Ring{a, b} {
		poll.Until(t, 10*time.Second, "both keys published", func() bool { return len(accessKeys(r.Published())) == 2 })
	}
	lastOld, cl := issue(t, ta)
	if cl.KeyID != first.KeyID {
		t.Fatalf("signed with %s before the new key activates, want %s", cl.KeyID, first.KeyID)
	}
	c.Advance(15 * time.Minute)
	newToken, cl := issue(t, ta)
	if cl.KeyID == first.KeyID {
		t.Fatal("still signing with the old key after the new one activated")
	}
	for name, token := range map[string]string{"new": newToken, "last old": lastOld} {
		if _, err := tb.Parse("user", token); err != nil {
			t.Errorf("the %s token on B: %v", name, err)
		}
	}
	if !strings.Contains(alog.String()+blog.String(), "signing key rotated") {
		t.Errorf("no log of the rotation")
	}
	// The old key retired 0 s ago; it stays published 15 min + Margin.
	c.Advance(15*time.Minute + signingkeys.Margin)
	if _, err := tb.Parse("user", lastOld); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("an expired token of the old key: %v", err)
	}
	forged := forgeWith(t, oldKey, c)
	for _, r := range []*signingkeys.Ring{a, b} {
		if n := len(accessKeys(r.Published())); n != 1 {
			t.Errorf("published %d access-token keys, want the new one only", n)
		}
		if _, err := tokens(t, r, c, auth.EdDSA).Parse("user", forged); !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("a fresh token of the retired and expired key: %v", err)
		}
	}
}

// accessKeys returns the access-token keys of keys.
func accessKeys(keys []*auth.Key) []*auth.Key {
	return slices.DeleteFunc(slices.Clone(keys), func(k *auth.Key) bool { return k.Alg == auth.RS256 })
}

// forgeWith signs a fresh token with k, ignoring its windows.
func forgeWith(t *testing.T, k *auth.Key, c *testclock.Clock) string {
	bare := *k
	bare.ActiveFrom, bare.RetiredAt, bare.NotAfter = time.Time{}, time.Time{}, time.Time{}
	set, err := auth.NewKeySet(&bare)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := issue(t, &auth.Tokens{Alg: k.Alg, Keys: &auth.StaticKeys{Set: set, Now: c.Now}, Now: c.Now})
	return token
}

// An instance started with another algorithm rotates to it at once; the
// key it replaces signs until the new one activates. One started with
// HS256 retires the current key, which keeps verifying; an instance
// configured for EdDSA then makes a new one.
func TestSwitchingAlgorithm(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	ed, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := ed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	edToken, _ := issue(t, tokens(t, ed, c, auth.EdDSA))
	es, _ := ring(t, db, c, auth.ES256, hexKey)
	if err := es.Open(ctx); err != nil {
		t.Fatal(err)
	}
	tes := tokens(t, es, c, auth.ES256)
	bridge, cl := issue(t, tes)
	if cl.KeyID == "" || keyAlg(t, es, cl.KeyID) != auth.EdDSA {
		t.Fatalf("before the ES256 key activates: signed by %s", cl.KeyID)
	}
	c.Advance(15 * time.Minute)
	if _, cl := issue(t, tes); keyAlg(t, es, cl.KeyID) != auth.ES256 {
		t.Fatalf("after the ES256 key activated: signed by a key of %s", keyAlg(t, es, cl.KeyID))
	}
	hs, _ := ring(t, db, c, auth.HS256, hexKey)
	if err := hs.Open(ctx); err != nil {
		t.Fatal(err)
	}
	ths := tokens(t, hs, c, auth.HS256)
	esToken, _ := issue(t, tes)
	for name, token := range map[string]string{"EdDSA": bridge, "ES256": esToken} {
		if _, err := ths.Parse("user", token); err != nil {
			t.Errorf("an %s token on the HS256 instance: %v", name, err)
		}
	}
	if _, err := tokens(t, es, c, auth.ES256).Parse("user", edToken); err != nil {
		t.Errorf("the first EdDSA token on the ES256 instance: %v", err)
	}
	if _, err := hs.SigningKey(); !errors.Is(err, auth.ErrNoSigningKey) {
		t.Errorf("the HS256 instance has a signing key: %v", err)
	}
	if rotated, err := ed.Rotate(ctx); !rotated || err != nil {
		t.Fatalf("Rotate with every key retired: %v, %v", rotated, err)
	}
	if _, cl := issue(t, tokens(t, ed, c, auth.EdDSA)); keyAlg(t, ed, cl.KeyID) != auth.EdDSA {
		t.Errorf("signed by a key of %s", keyAlg(t, ed, cl.KeyID))
	}
}

func keyAlg(t *testing.T, r *signingkeys.Ring, kid string) string {
	k, err := r.VerifyKey(t.Context(), kid)
	if err != nil {
		t.Fatal(err)
	}
	return k.Alg
}

// A kid this instance has not loaded is looked up at once, even right
// after a load, and then at most once per MaxUnknownReload.
func TestUnknownKidReloads(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	a, _ := ring(t, db, c, auth.EdDSA, hexKey)
	b, _ := ring(t, db, c, auth.EdDSA, hexKey)
	hs, _ := ring(t, db, c, auth.HS256, hexKey)
	for _, r := range []*signingkeys.Ring{a, b} {
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// newKey makes b's next key: hs retires the current one, and b's
	// rotation finds none.
	newKey := func() string {
		t.Helper()
		if err := hs.Open(ctx); err != nil {
			t.Fatal(err)
		}
		if made, err := b.Rotate(ctx); !made || err != nil {
			t.Fatalf("Rotate = %v, %v", made, err)
		}
		k, err := b.SigningKey()
		if err != nil {
			t.Fatal(err)
		}
		return k.ID
	}
	second := newKey()
	if _, err := a.VerifyKey(ctx, second); err != nil {
		t.Fatalf("a new kid right after a load: %v", err)
	}
	third := newKey()
	if _, err := a.VerifyKey(ctx, third); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("a second new kid within MaxUnknownReload: %v", err)
	}
	c.Advance(signingkeys.MaxUnknownReload)
	if _, err := a.VerifyKey(ctx, third); err != nil {
		t.Fatalf("the second new kid MaxUnknownReload later: %v", err)
	}
}

// TestRetiredKeysDeleted: a key is deleted, private half and all, once it
// has not been published for RetiredKeep, by Rotate and at Open, with any
// algorithm; a key still published, or not published for less, stays.
func TestRetiredKeysDeleted(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	ed, _ := ring(t, db, c, auth.EdDSA, hexKey)
	hs, _ := ring(t, db, c, auth.HS256, hexKey)
	has := func(kid string) bool {
		return slices.ContainsFunc(keyRows(t, db), func(k models.SigningKey) bool { return k.Kid == kid })
	}
	current := func() string {
		t.Helper()
		for _, k := range keyRows(t, db) {
			if k.RetiredAt == nil {
				return k.Kid
			}
		}
		t.Fatal("no current key")
		return ""
	}
	if err := ed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	first := current()
	if err := hs.Open(ctx); err != nil { // retires it now
		t.Fatal(err)
	}
	if err := ed.Open(ctx); err != nil { // a new current key
		t.Fatal(err)
	}
	second := current()
	unpublished := 15*time.Minute + signingkeys.Margin // the tests' token lifetime
	c.Advance(unpublished + signingkeys.RetiredKeep - time.Second)
	if _, err := ed.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	if !has(first) || !has(second) {
		t.Fatalf("a second before RetiredKeep ran out: first kept %v, second kept %v; want both", has(first), has(second))
	}
	c.Advance(2 * time.Second)
	if _, err := hs.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	if has(first) || !has(second) {
		t.Fatalf("after RetiredKeep (HS256 Rotate): first kept %v, second kept %v; want only the second", has(first), has(second))
	}
	// Open deletes too: hs retires every key (one made by the rotation
	// above at its activation, MaxLead ahead), and RetiredKeep later an
	// EdDSA start finds them gone.
	if err := hs.Open(ctx); err != nil {
		t.Fatal(err)
	}
	c.Advance(signingkeys.MaxLead + unpublished + signingkeys.RetiredKeep + time.Second)
	if err := ed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if rows := keyRows(t, db); len(rows) != 1 || rows[0].RetiredAt != nil {
		t.Fatalf("after Open: %d keys, want only the one it made", len(rows))
	}
}
