package models_test

import (
	"testing"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// mfaEnabled reads the owner's stored flag through the read that every
// authenticated request makes, and checks that the account reads agree.
func mfaEnabled(t *testing.T, db *sqlx.DB, tables models.OwnerTables, owner uuid.UUID) bool {
	t.Helper()
	accounts := models.NewAccountStore(tables).Prepared(db)
	withSession, err := accounts.ByIDWithSession(testCtx(t), db, owner, uuid.New(), testNow(), false)
	if err != nil {
		t.Fatal(err)
	}
	assured, err := accounts.ByIDWithSession(testCtx(t), db, owner, uuid.New(), testNow(), true)
	if err != nil {
		t.Fatal(err)
	}
	if assured.MFAEnabled != withSession.MFAEnabled {
		t.Errorf("ByIDWithSession says %v with assurance, %v without", assured.MFAEnabled, withSession.MFAEnabled)
	}
	acc, err := accounts.ByID(testCtx(t), db, owner)
	if err != nil {
		t.Fatal(err)
	}
	if acc.MFAEnabled != withSession.MFAEnabled {
		t.Errorf("ByID says %v, ByIDWithSession %v", acc.MFAEnabled, withSession.MFAEnabled)
	}
	return acc.MFAEnabled
}

// confirmedTOTP gives owner a confirmed TOTP secret.
func confirmedTOTP(t *testing.T, db models.DB, ownerType string, owner uuid.UUID) {
	t.Helper()
	ctx, store := testCtx(t), models.FactorStore{}
	row, err := store.PutPendingTOTP(ctx, db, &models.TOTP{ID: newID(t), OwnerType: ownerType, OwnerID: owner,
		SecretCiphertext: []byte{1}, SecretNonce: make([]byte, 12), CreatedAt: testNow()})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := store.ConfirmTOTP(ctx, db, row.ID, row.SecretNonce, 100, testNow()); !ok || err != nil {
		t.Fatalf("ConfirmTOTP: %v %v", ok, err)
	}
}

// TestMFAEnabledFollowsFactors: the stored mfa_enabled of an owner is
// true exactly while it has a confirmed TOTP secret or a passkey, through
// every store change of a factor, for both owner types.
func TestMFAEnabledFollowsFactors(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, factors, passkeys := testCtx(t), models.FactorStore{}.Prepared(db), models.PasskeyStore{}.Prepared(db)
	for _, tables := range []models.OwnerTables{models.UserTables, models.AdminTables} {
		typ := tables.Type
		owner := createAccount(t, db, tables, "flag-"+typ+"@x.io")
		step := func(what string, want bool) {
			t.Helper()
			if got := mfaEnabled(t, db, tables, owner.ID); got != want {
				t.Errorf("%s, %s: mfa_enabled %v, want %v", typ, what, got, want)
			}
		}
		step("no factor", false)
		pending, err := factors.PutPendingTOTP(ctx, db, &models.TOTP{ID: newID(t), OwnerType: typ, OwnerID: owner.ID,
			SecretCiphertext: []byte{1}, SecretNonce: make([]byte, 12), CreatedAt: testNow()})
		if err != nil {
			t.Fatal(err)
		}
		step("a pending TOTP secret", false)
		if ok, err := factors.ConfirmTOTP(ctx, db, pending.ID, pending.SecretNonce, 100, testNow()); !ok || err != nil {
			t.Fatalf("ConfirmTOTP: %v %v", ok, err)
		}
		step("a confirmed TOTP secret", true)
		p := newPasskey(t, typ, owner.ID, testNow())
		if err := passkeys.Insert(ctx, db, p); err != nil {
			t.Fatal(err)
		}
		if _, err := factors.DeleteTOTP(ctx, db, typ, owner.ID); err != nil {
			t.Fatal(err)
		}
		step("TOTP removed, a passkey left", true)
		if _, err := passkeys.Remove(ctx, db, typ, owner.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		step("the last passkey removed", false)
		other := map[string]string{"user": "admin", "admin": "user"}[typ]
		if err := passkeys.Insert(ctx, db, newPasskey(t, other, owner.ID, testNow())); err != nil {
			t.Fatal(err)
		}
		confirmedTOTP(t, db, other, owner.ID)
		step("factors of another owner type with this id", false)
		for range 2 {
			if err := passkeys.Insert(ctx, db, newPasskey(t, typ, owner.ID, testNow())); err != nil {
				t.Fatal(err)
			}
		}
		step("two passkeys", true)
		if n, err := passkeys.RemoveAll(ctx, db, typ, owner.ID); n != 2 || err != nil {
			t.Fatalf("RemoveAll: %d %v", n, err)
		}
		step("every passkey removed", false)
	}
}

// TestMFAEnabledUnderConcurrentChanges: two transactions change one
// owner's factors at once, neither locking the owner first; the second's
// trigger waits for the first to commit and then counts its factor, so
// the flag ends as the factors are. (Computed from the snapshot the
// second statement started with, it would miss the first's passkey and
// end false.)
func TestMFAEnabledUnderConcurrentChanges(t *testing.T) {
	t.Parallel()
	db := openPool(t, 4)
	ctx := testCtx(t)
	cases := []struct {
		name string
		// setUp gives the owner the factor that second removes.
		setUp  func(owner uuid.UUID)
		first  func(tx *sqlx.Tx, owner uuid.UUID) error
		second func(tx *sqlx.Tx, owner uuid.UUID) error
	}{{
		name:  "a passkey added while the TOTP secret is removed",
		setUp: func(owner uuid.UUID) { confirmedTOTP(t, db, "user", owner) },
		first: func(tx *sqlx.Tx, owner uuid.UUID) error {
			return models.PasskeyStore{}.Insert(ctx, tx, newPasskey(t, "user", owner, testNow()))
		},
		second: func(tx *sqlx.Tx, owner uuid.UUID) error {
			_, err := models.FactorStore{}.DeleteTOTP(ctx, tx, "user", owner)
			return err
		},
	}, {
		name: "a TOTP secret confirmed while the passkey is removed",
		setUp: func(owner uuid.UUID) {
			if err := (models.PasskeyStore{}).Insert(ctx, db, newPasskey(t, "user", owner, testNow())); err != nil {
				t.Fatal(err)
			}
		},
		first: func(tx *sqlx.Tx, owner uuid.UUID) error {
			confirmedTOTP(t, tx, "user", owner)
			return nil
		},
		second: func(tx *sqlx.Tx, owner uuid.UUID) error {
			_, err := models.PasskeyStore{}.RemoveAll(ctx, tx, "user", owner)
			return err
		},
	}}
	for i, c := range cases {
		owner := createAccount(t, db, models.UserTables, "race-"+string(rune('a'+i))+"@x.io")
		c.setUp(owner.ID)
		if !mfaEnabled(t, db, models.UserTables, owner.ID) {
			t.Fatalf("%s: set-up left no second factor", c.name)
		}
		first, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.first(first, owner.ID); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			second, err := db.BeginTxx(ctx, nil)
			if err == nil {
				if err = c.second(second, owner.ID); err == nil {
					err = second.Commit()
				} else {
					_ = second.Rollback()
				}
			}
			done <- err
		}()
		waitForLockWaiter(t, db)
		if err := first.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if !mfaEnabled(t, db, models.UserTables, owner.ID) {
			t.Errorf("%s: mfa_enabled false, but the owner has a second factor", c.name)
		}
	}
}
