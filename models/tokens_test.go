package models_test

import (
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestOneTimeTokens(t *testing.T) {
	db := pgtest.New(t)
	ctx := testCtx(t)
	store := models.TokenStore{}.Prepared(db)
	acc := createAccount(t, db, models.UserTables, "tok@example.com")
	now := testNow()
	issue := func(purpose string, at time.Time, ttl time.Duration) *models.OneTimeToken {
		t.Helper()
		tok := &models.OneTimeToken{ID: newID(t), OwnerType: "user", OwnerID: acc.ID, Purpose: purpose,
			TokenHash: randomHex(t, 32), ExpiresAt: at.Add(ttl), CreatedAt: at}
		if err := store.Issue(ctx, db, tok); err != nil {
			t.Fatalf("issue: %v", err)
		}
		return tok
	}
	first := issue(models.PurposePasswordReset, now.Add(-2*time.Minute), 30*time.Minute)
	verify := issue(models.PurposeEmailVerify, now.Add(-2*time.Minute), time.Hour)
	second := issue(models.PurposePasswordReset, now.Add(-time.Minute), 30*time.Minute)

	// Live reads without taking: a live token stays live.
	for range 2 {
		if got, err := store.Live(ctx, db, models.PurposePasswordReset, second.TokenHash, now); err != nil || got.ID != second.ID || got.UsedAt != nil {
			t.Fatalf("live: %+v %v", got, err)
		}
	}
	_, err := store.Live(ctx, db, models.PurposePasswordReset, first.TokenHash, now)
	wantErr(t, "live: voided token", err, models.ErrNotFound)
	_, err = store.Live(ctx, db, models.PurposeEmailVerify, second.TokenHash, now)
	wantErr(t, "live: token of another purpose", err, models.ErrNotFound)
	_, err = store.Live(ctx, db, models.PurposePasswordReset, second.TokenHash, second.ExpiresAt)
	wantErr(t, "live: expired token", err, models.ErrNotFound)
	// A new token voids the earlier unused one of its purpose only.
	_, err = store.Consume(ctx, db, models.PurposePasswordReset, first.TokenHash, now)
	wantErr(t, "voided token", err, models.ErrNotFound)
	// Purpose is checked.
	_, err = store.Consume(ctx, db, models.PurposeEmailVerify, second.TokenHash, now)
	wantErr(t, "token of another purpose", err, models.ErrNotFound)
	got, err := store.Consume(ctx, db, models.PurposePasswordReset, second.TokenHash, now)
	if err != nil || got.ID != second.ID || got.UsedAt == nil || !got.UsedAt.Equal(now) {
		t.Fatalf("consume: %+v %v", got, err)
	}
	// Single use.
	_, err = store.Consume(ctx, db, models.PurposePasswordReset, second.TokenHash, now)
	wantErr(t, "used token", err, models.ErrNotFound)
	_, err = store.Live(ctx, db, models.PurposePasswordReset, second.TokenHash, now)
	wantErr(t, "live: used token", err, models.ErrNotFound)
	if _, err := store.Consume(ctx, db, models.PurposeEmailVerify, verify.TokenHash, now); err != nil {
		t.Fatalf("the verification token was voided by a reset token: %v", err)
	}
	// Expiry.
	old := issue(models.PurposeEmailVerify, now.Add(-2*time.Hour), time.Hour)
	_, err = store.Consume(ctx, db, models.PurposeEmailVerify, old.TokenHash, now)
	wantErr(t, "expired token", err, models.ErrNotFound)
	// The count includes voided and used tokens, within the window only.
	n, err := store.CountSince(ctx, db, "user", acc.ID, models.PurposePasswordReset, now.Add(-time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("count: %d %v, want 2", n, err)
	}
	n, _ = store.CountSince(ctx, db, "user", acc.ID, models.PurposeEmailVerify, now.Add(-time.Hour))
	if n != 1 {
		t.Fatalf("count of verification tokens in the hour: %d, want 1", n)
	}
	// Only lowercase hex SHA-256 is stored.
	bad := &models.OneTimeToken{ID: newID(t), OwnerType: "user", OwnerID: acc.ID, Purpose: models.PurposeEmailVerify,
		TokenHash: "ABC", ExpiresAt: now.Add(time.Hour), CreatedAt: now}
	if err := store.Issue(ctx, db, bad); err == nil {
		t.Fatal("a malformed hash was stored")
	}
}

func TestVoidAllOneTimeTokens(t *testing.T) {
	db := pgtest.New(t)
	ctx := testCtx(t)
	store := models.TokenStore{}.Prepared(db)
	acc := createAccount(t, db, models.UserTables, "void@example.com")
	other := createAccount(t, db, models.UserTables, "keep@example.com")
	now := testNow()
	issue := func(owner *models.Account, purpose string) *models.OneTimeToken {
		t.Helper()
		tok := &models.OneTimeToken{ID: newID(t), OwnerType: "user", OwnerID: owner.ID, Purpose: purpose,
			TokenHash: randomHex(t, 32), ExpiresAt: now.Add(time.Hour), CreatedAt: now.Add(-time.Minute)}
		if err := store.Issue(ctx, db, tok); err != nil {
			t.Fatalf("issue: %v", err)
		}
		return tok
	}
	used := issue(acc, models.PurposeEmailVerify)
	if _, err := store.Consume(ctx, db, models.PurposeEmailVerify, used.TokenHash, now.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	reset, verify := issue(acc, models.PurposePasswordReset), issue(acc, models.PurposeEmailVerify)
	kept := issue(other, models.PurposePasswordReset)
	n, err := store.VoidAll(ctx, db, "user", acc.ID, now)
	if err != nil || n != 2 {
		t.Fatalf("VoidAll: %d %v, want the two unused tokens (not the used one)", n, err)
	}
	for _, tok := range []*models.OneTimeToken{reset, verify} {
		_, err := store.Consume(ctx, db, tok.Purpose, tok.TokenHash, now)
		wantErr(t, "voided "+tok.Purpose, err, models.ErrNotFound)
	}
	if _, err := store.Consume(ctx, db, kept.Purpose, kept.TokenHash, now); err != nil {
		t.Errorf("another owner's token was voided: %v", err)
	}
	if n, err := store.VoidAll(ctx, db, "admin", other.ID, now); err != nil || n != 0 {
		t.Errorf("VoidAll of another owner type: %d %v, want 0", n, err)
	}
}

// TestRevertTokensOutliveVoids issues e-mail change and revert tokens:
// VoidAll and a newer token void the change token but never a revert
// token, which only VoidRevertsSince (for those issued from a time on),
// its use or its expiry end; both remember their address.
func TestRevertTokensOutliveVoids(t *testing.T) {
	db := pgtest.New(t)
	ctx := testCtx(t)
	store := models.TokenStore{}.Prepared(db)
	acc := createAccount(t, db, models.UserTables, "revert@example.com")
	now := testNow()
	issue := func(purpose, email string, at time.Time) *models.OneTimeToken {
		t.Helper()
		tok := &models.OneTimeToken{ID: newID(t), OwnerType: "user", OwnerID: acc.ID, Purpose: purpose,
			TokenHash: randomHex(t, 32), ExpiresAt: now.Add(time.Hour), CreatedAt: at, Email: &email}
		if err := store.Issue(ctx, db, tok); err != nil {
			t.Fatalf("issue: %v", err)
		}
		return tok
	}
	early := issue(models.PurposeEmailRevert, "first@example.com", now.Add(-3*time.Minute))
	middle := issue(models.PurposeEmailRevert, "second@example.com", now.Add(-2*time.Minute))
	late := issue(models.PurposeEmailRevert, "third@example.com", now.Add(-time.Minute))
	change := issue(models.PurposeEmailChange, "next@example.com", now.Add(-time.Minute))
	if n, err := store.VoidAll(ctx, db, "user", acc.ID, now.Add(-time.Second)); err != nil || n != 1 {
		t.Fatalf("VoidAll: %d %v, want the change token only", n, err)
	}
	_, err := store.Consume(ctx, db, change.Purpose, change.TokenHash, now)
	wantErr(t, "voided change token", err, models.ErrNotFound)
	// A token without an address is refused by the schema.
	bad := &models.OneTimeToken{ID: newID(t), OwnerType: "user", OwnerID: acc.ID, Purpose: models.PurposeEmailRevert,
		TokenHash: randomHex(t, 32), ExpiresAt: now.Add(time.Hour), CreatedAt: now}
	if err := store.Issue(ctx, db, bad); err == nil {
		t.Fatal("a revert token without an address was stored")
	}
	if n, err := store.VoidRevertsSince(ctx, db, "user", acc.ID, middle.CreatedAt, now.Add(-time.Second)); err != nil || n != 2 {
		t.Fatalf("VoidRevertsSince: %d %v, want the middle and late tokens", n, err)
	}
	for _, tok := range []*models.OneTimeToken{middle, late} {
		_, err := store.Consume(ctx, db, tok.Purpose, tok.TokenHash, now)
		wantErr(t, "revert token of a later change", err, models.ErrNotFound)
	}
	got, err := store.Consume(ctx, db, early.Purpose, early.TokenHash, now)
	if err != nil || got.Email == nil || *got.Email != "first@example.com" {
		t.Fatalf("consume the early revert token: %+v %v", got, err)
	}
}
