package models_test

import (
	"errors"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestAccountWithoutPassword: an account created without a password is
// stored with a NULL one, reads as an empty hash with HasPassword false,
// and has one once a password is set.
func TestAccountWithoutPassword(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewAccountStore(models.UserTables).Prepared(db), testNow()
	acc := &models.Account{ID: newID(t), Email: "fed@x.io", IsActive: true, Timezone: "UTC", Locale: "en", CreatedAt: now}
	if err := store.Create(ctx, db, acc); err != nil {
		t.Fatal(err)
	}
	var null bool
	if err := db.GetContext(ctx, &null, `SELECT password IS NULL FROM users WHERE id = $1`, acc.ID); err != nil || !null {
		t.Fatalf("stored password NULL: %v %v, want true", null, err)
	}
	got, err := store.ByEmail(ctx, db, "fed@x.io")
	if err != nil || got.Password != "" || got.HasPassword {
		t.Fatalf("ByEmail: password %q, hasPassword %v, %v; want empty and false", got.Password, got.HasPassword, err)
	}
	if err := store.SetPassword(ctx, db, acc.ID, "$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$a2V5", "salt", now); err != nil {
		t.Fatal(err)
	}
	if got, err := store.ByID(ctx, db, acc.ID); err != nil || !got.HasPassword {
		t.Errorf("after SetPassword: hasPassword %v, %v; want true", got.HasPassword, err)
	}
}

// TestIdentityStore: an identity is unique by (provider, subject), lists
// under its user, records what the provider says, and is removed only by
// its own user.
func TestIdentityStore(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.IdentityStore{}.Prepared(db), testNow()
	ada := createAccount(t, db, models.UserTables, "ada@x.io")
	bob := createAccount(t, db, models.UserTables, "bob@x.io")
	email := "ada@idp.test"
	id := &models.Identity{ID: newID(t), UserID: ada.ID, Provider: "idp", Subject: "s-1", Email: &email, CreatedAt: now}
	if err := store.Insert(ctx, db, id); err != nil {
		t.Fatal(err)
	}
	dup := &models.Identity{ID: newID(t), UserID: bob.ID, Provider: "idp", Subject: "s-1", CreatedAt: now}
	if err := store.Insert(ctx, db, dup); !errors.Is(err, models.ErrDuplicate) {
		t.Errorf("the same (provider, subject) for another user: %v, want ErrDuplicate", err)
	}
	other := &models.Identity{ID: newID(t), UserID: bob.ID, Provider: "other", Subject: "s-1", CreatedAt: now}
	if err := store.Insert(ctx, db, other); err != nil {
		t.Errorf("the same subject at another provider: %v", err)
	}
	later, changed := now.Add(time.Hour), "ada@new.test"
	if err := store.Seen(ctx, db, id.ID, &changed, true, later); err != nil {
		t.Fatal(err)
	}
	if err := store.LoggedIn(ctx, db, id.ID, later); err != nil {
		t.Fatal(err)
	}
	got, err := store.BySubject(ctx, db, "idp", "s-1")
	if err != nil || got.UserID != ada.ID || *got.Email != changed || !got.EmailVerified || !got.UpdatedAt.Equal(later) ||
		got.LastLoginAt == nil || !got.LastLoginAt.Equal(later) {
		t.Fatalf("BySubject: %+v, %v", got, err)
	}
	if n, err := store.Count(ctx, db, ada.ID); n != 1 || err != nil {
		t.Errorf("Count: %d %v, want 1", n, err)
	}
	if _, err := store.Remove(ctx, db, bob.ID, id.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Remove by another user: %v, want ErrNotFound", err)
	}
	if gone, err := store.Remove(ctx, db, ada.ID, id.ID); err != nil || gone.Subject != "s-1" {
		t.Errorf("Remove: %+v %v", gone, err)
	}
	if list, err := store.ByUser(ctx, db, ada.ID); len(list) != 0 || err != nil {
		t.Errorf("ByUser after Remove: %v %v", list, err)
	}
}

// TestFlowLifecycle: a flow's state is used once, before it expires; its
// result is set once and spent once, before it expires.
func TestFlowLifecycle(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.FlowStore{}.Prepared(db), testNow()
	user := createAccount(t, db, models.UserTables, "flow@x.io")
	f := &models.Flow{ID: newID(t), StateHash: randomHex(t, 32), Provider: "idp", NonceHash: randomHex(t, 32),
		VerifierCiphertext: []byte{1, 2}, VerifierNonce: make([]byte, 12), RedirectTo: "https://app.test/",
		Client: "web", ExpiresAt: now.Add(10 * time.Minute), CreatedAt: now}
	if err := store.Insert(ctx, db, f); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Use(ctx, db, f.ID, now.Add(10*time.Minute)); ok || err != nil {
		t.Errorf("Use at its expiry: %v %v", ok, err)
	}
	if ok, err := store.Use(ctx, db, f.ID, now); !ok || err != nil {
		t.Fatalf("Use: %v %v", ok, err)
	}
	if ok, err := store.Use(ctx, db, f.ID, now); ok || err != nil {
		t.Errorf("Use again: %v %v", ok, err)
	}
	result := randomHex(t, 32)
	if err := store.SetResult(ctx, db, f.ID, result, user.ID, models.FlowRegister, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := store.SetResult(ctx, db, f.ID, randomHex(t, 32), user.ID, models.FlowLogin, now.Add(time.Minute)); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a second result: %v, want ErrNotFound", err)
	}
	got, err := store.ByResult(ctx, db, result)
	if err != nil || got.ID != f.ID || *got.ResultUserID != user.ID || *got.ResultEvent != models.FlowRegister || got.UsedAt == nil {
		t.Fatalf("ByResult: %+v %v", got, err)
	}
	if ok, err := store.Spend(ctx, db, f.ID, now.Add(time.Minute)); ok || err != nil {
		t.Errorf("Spend at its expiry: %v %v", ok, err)
	}
	if ok, err := store.Spend(ctx, db, f.ID, now); !ok || err != nil {
		t.Errorf("Spend: %v %v", ok, err)
	}
	if ok, err := store.Spend(ctx, db, f.ID, now); ok || err != nil {
		t.Errorf("Spend again: %v %v", ok, err)
	}
	if n, err := store.Purge(ctx, db, now.Add(11*time.Minute), 1); n != 1 || err != nil {
		t.Errorf("Purge: %d %v, want 1", n, err)
	}
}
