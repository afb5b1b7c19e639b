package models_test

import (
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/models"
)

// newSigningKey returns a key row with a fresh id and kid, activated at
// activated, not stored. Its key material is placeholder bytes: the store
// never reads it.
func newSigningKey(t testing.TB, alg string, activated time.Time) *models.SigningKey {
	t.Helper()
	return &models.SigningKey{
		ID: newID(t), Kid: randomHex(t, 16), Alg: alg,
		PublicKey: []byte("public"), PrivateKeyCiphertext: []byte("sealed"),
		CreatedAt: activated, ActivatedAt: activated,
	}
}

// Eight processes starting at once on an empty table store one key.
func TestSigningKeyInsertFirstOnce(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx := testCtx(t)
	now := testNow()
	stored := make([]bool, 8)
	errs := make([]error, 8)
	race(8, func(i int) {
		stored[i], errs[i] = models.SigningKeyStore{}.InsertFirst(ctx, db, newSigningKey(t, "EdDSA", now))
	})
	n := 0
	for i := range stored {
		if errs[i] != nil {
			t.Fatalf("InsertFirst #%d: %v", i, errs[i])
		}
		if stored[i] {
			n++
		}
	}
	if got := count(t, db, `SELECT count(*) FROM signing_keys`); n != 1 || got != 1 {
		t.Fatalf("%d callers stored a key, %d rows; want 1 and 1", n, got)
	}
}

// Eight rotations at once, all due, make one new key; the current key
// retires when the new one activates; a key not due is not rotated.
func TestSigningKeyRotateOnce(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx := testCtx(t)
	store := models.SigningKeyStore{}
	t0 := testNow().Add(-time.Hour)
	first := newSigningKey(t, "EdDSA", t0)
	if ok, err := store.InsertFirst(ctx, db, first); !ok || err != nil {
		t.Fatal(ok, err)
	}
	now := t0.Add(time.Hour)
	if ok, err := store.Rotate(ctx, db, newSigningKey(t, "EdDSA", now), t0.Add(-time.Second), false); ok || err != nil {
		t.Fatalf("a rotation not due: %v, %v", ok, err)
	}
	rotated := make([]bool, 8)
	race(8, func(i int) {
		var err error
		next := newSigningKey(t, "EdDSA", now.Add(5*time.Minute))
		if rotated[i], err = store.Rotate(ctx, db, next, now.Add(-30*time.Minute), false); err != nil {
			t.Errorf("Rotate #%d: %v", i, err)
		}
	})
	n := 0
	for _, r := range rotated {
		if r {
			n++
		}
	}
	keys, err := store.Published(ctx, db, now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(keys) != 2 {
		t.Fatalf("%d rotations, %d keys; want 1 and 2", n, len(keys))
	}
	old, cur := keys[0], keys[1]
	if old.ID != first.ID || old.RetiredAt == nil || !old.RetiredAt.Equal(cur.ActivatedAt) || cur.RetiredAt != nil {
		t.Fatalf("old %+v, current %+v", old, cur)
	}
	// Published leaves out a key retired before since.
	if later, _ := store.Published(ctx, db, cur.ActivatedAt); len(later) != 1 || later[0].ID != cur.ID {
		t.Errorf("published after the old key's retirement: %+v", later)
	}
}

// An instance configured for another algorithm rotates at once, and one
// configured for HS256 retires every key.
func TestSigningKeySwitchAlgorithm(t *testing.T) {
	t.Parallel()
	db := openPool(t, 2)
	ctx := testCtx(t)
	store := models.SigningKeyStore{}
	now := testNow()
	if _, err := store.InsertFirst(ctx, db, newSigningKey(t, "EdDSA", now)); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Rotate(ctx, db, newSigningKey(t, "EdDSA", now), now.Add(-time.Hour), true); ok || err != nil {
		t.Fatalf("same algorithm, not due: %v, %v", ok, err)
	}
	if ok, err := store.Rotate(ctx, db, newSigningKey(t, "ES256", now.Add(time.Second)), now.Add(-time.Hour), true); !ok || err != nil {
		t.Fatalf("another algorithm: %v, %v", ok, err)
	}
	pending := newSigningKey(t, "ES256", now.Add(time.Hour))
	if n, err := store.RetireAll(ctx, db, now.Add(2*time.Second)); n != 1 || err != nil {
		t.Fatalf("RetireAll = %d, %v", n, err)
	}
	if ok, err := store.InsertFirst(ctx, db, pending); !ok || err != nil {
		t.Fatalf("a new key once every key retired: %v, %v", ok, err)
	}
	if n, err := store.RetireAll(ctx, db, now.Add(3*time.Second)); n != 1 || err != nil {
		t.Fatalf("RetireAll of a key not active yet = %d, %v", n, err)
	}
	if got := count(t, db, `SELECT count(*) FROM signing_keys WHERE retired_at IS NULL`); got != 0 {
		t.Errorf("%d keys not retired", got)
	}
}

// One key of each purpose is current; eight processes starting at once
// store one ID-token key beside the access-token key; an RS256 key is an
// ID-token key and nothing else.
func TestSigningKeyPurposes(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx := testCtx(t)
	store := models.SigningKeyStore{}
	now := testNow()
	if ok, err := store.InsertFirst(ctx, db, newSigningKey(t, "EdDSA", now)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	idKey := func() *models.SigningKey {
		k := newSigningKey(t, "RS256", now)
		k.Purpose = models.SigningKeyIDToken
		return k
	}
	stored := make([]bool, 8)
	race(8, func(i int) {
		var err error
		if stored[i], err = store.InsertFirst(ctx, db, idKey()); err != nil {
			t.Errorf("InsertFirst #%d: %v", i, err)
		}
	})
	if n := count(t, db, `SELECT count(*) FROM signing_keys WHERE purpose = 'id_token'`); n != 1 || slices.Index(stored, true) < 0 {
		t.Fatalf("%d ID-token keys (stored %v), want 1", n, stored)
	}
	cur, err := store.Current(ctx, db, models.SigningKeyIDToken)
	if err != nil || cur == nil || cur.Alg != "RS256" || cur.Purpose != models.SigningKeyIDToken {
		t.Fatalf("Current(id_token) = %+v, %v", cur, err)
	}
	if cur, err := store.Current(ctx, db, models.SigningKeyAccess); err != nil || cur == nil || cur.Alg != "EdDSA" {
		t.Fatalf("Current(access) = %+v, %v", cur, err)
	}
	// A rotation of one purpose leaves the other's key current.
	next := idKey()
	next.ActivatedAt = now.Add(time.Minute)
	if ok, err := store.Rotate(ctx, db, next, now, false); !ok || err != nil {
		t.Fatalf("Rotate(id_token) = %v, %v", ok, err)
	}
	if n := count(t, db, `SELECT count(*) FROM signing_keys WHERE retired_at IS NULL`); n != 2 {
		t.Fatalf("%d current keys after rotating the ID-token key, want 2", n)
	}
	for name, k := range map[string]*models.SigningKey{
		"an RS256 access-token key": newSigningKey(t, "RS256", now),
		"an EdDSA ID-token key":     {ID: newID(t), Kid: randomHex(t, 16), Alg: "EdDSA", Purpose: models.SigningKeyIDToken, PublicKey: []byte("p"), PrivateKeyCiphertext: []byte("s"), CreatedAt: now, ActivatedAt: now},
	} {
		if _, err := db.ExecContext(ctx, `DELETE FROM signing_keys`); err != nil {
			t.Fatal(err)
		}
		if ok, err := store.InsertFirst(ctx, db, k); ok || err == nil {
			t.Errorf("%s was stored: %v, %v", name, ok, err)
		}
	}
}
