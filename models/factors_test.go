package models_test

import (
	"errors"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestChallengeLifecycle: a challenge is live until it is used, expires or
// has been failed the maximum number of times; every change to it is
// conditional on it being live.
func TestChallengeLifecycle(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.ChallengeStore{}.Prepared(db), testNow()
	owner := createAccount(t, db, models.UserTables, "ch@x.io")
	insert := func(expires time.Time) *models.Challenge {
		c := &models.Challenge{ID: newID(t), OwnerType: "user", OwnerID: owner.ID, TokenHash: randomHex(t, 32), FirstFactor: models.MethodPassword,
			Client: "web", Platform: "web", ResponseVersion: 2, ExpiresAt: expires, CreatedAt: now}
		if err := store.Insert(ctx, db, c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := insert(now.Add(5 * time.Minute))
	if got, err := store.Live(ctx, db, "user", c.TokenHash, now, 3); err != nil || got.ID != c.ID || got.ResponseVersion != 2 || got.Attempts != 0 {
		t.Fatalf("Live: %+v, %v", got, err)
	}
	if _, err := store.Live(ctx, db, "admin", c.TokenHash, now, 3); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Live for another owner type: %v", err)
	}
	for want := 1; want <= 3; want++ {
		if n, ok, err := store.Fail(ctx, db, c.ID, 3, now); n != want || !ok || err != nil {
			t.Fatalf("Fail %d: %d %v %v", want, n, ok, err)
		}
	}
	if _, ok, err := store.Fail(ctx, db, c.ID, 3, now); ok || err != nil {
		t.Errorf("Fail of a burnt challenge: %v %v", ok, err)
	}
	if ok, err := store.Consume(ctx, db, c.ID, 3, now); ok || err != nil {
		t.Errorf("Consume of a burnt challenge: %v %v", ok, err)
	}
	if _, err := store.Live(ctx, db, "user", c.TokenHash, now, 3); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Live of a burnt challenge: %v", err)
	}
	d := insert(now.Add(time.Minute))
	if ok, err := store.Consume(ctx, db, d.ID, 3, now.Add(time.Minute)); ok || err != nil {
		t.Errorf("Consume at its expiry: %v %v", ok, err)
	}
	if ok, err := store.Consume(ctx, db, d.ID, 3, now); !ok || err != nil {
		t.Errorf("Consume: %v %v", ok, err)
	}
	if ok, err := store.Consume(ctx, db, d.ID, 3, now); ok || err != nil {
		t.Errorf("Consume again: %v %v", ok, err)
	}
	e := insert(now.Add(time.Minute))
	if n, err := store.VoidAll(ctx, db, "user", owner.ID, now); n != 2 || err != nil {
		t.Errorf("VoidAll: %d %v, want the two unused (the burnt one and the live one)", n, err)
	}
	if _, err := store.Live(ctx, db, "user", e.TokenHash, now, 3); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Live of a voided challenge: %v", err)
	}
	if n, err := store.Purge(ctx, db, now.Add(90*time.Second), 1); n != 2 || err != nil {
		t.Errorf("Purge: %d %v, want the two expired before the cutoff", n, err)
	}
}

// TestUseTOTPStepOnce: of concurrent uses of one step exactly one is
// accepted, and no earlier step is accepted after a later one.
func TestUseTOTPStepOnce(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx, store, now := testCtx(t), models.FactorStore{}.Prepared(db), testNow()
	owner := createAccount(t, db, models.UserTables, "step@x.io")
	row, err := store.PutPendingTOTP(ctx, db, &models.TOTP{ID: newID(t), OwnerType: "user", OwnerID: owner.ID,
		SecretCiphertext: []byte{1}, SecretNonce: make([]byte, 12), CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := store.UseTOTPStep(ctx, db, row.ID, 100, now); ok || err != nil {
		t.Errorf("a pending secret accepted a step: %v %v", ok, err)
	}
	if ok, err := store.ConfirmTOTP(ctx, db, row.ID, row.SecretNonce, 100, now); !ok || err != nil {
		t.Fatalf("ConfirmTOTP: %v %v", ok, err)
	}
	if _, err := store.PutPendingTOTP(ctx, db, &models.TOTP{ID: newID(t), OwnerType: "user", OwnerID: owner.ID,
		SecretCiphertext: []byte{2}, SecretNonce: make([]byte, 12), CreatedAt: now}); !errors.Is(err, models.ErrConflict) {
		t.Errorf("a pending secret over a confirmed one: %v", err)
	}
	for step := int64(99); step <= 101; step++ {
		accepted := 0
		results := make([]bool, 8)
		race(8, func(i int) {
			ok, err := store.UseTOTPStep(ctx, db, row.ID, step, now)
			if err != nil {
				t.Error(err)
			}
			results[i] = ok
		})
		for _, ok := range results {
			if ok {
				accepted++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[step > 100]; accepted != want {
			t.Errorf("step %d: accepted %d times, want %d", step, accepted, want)
		}
	}
}
