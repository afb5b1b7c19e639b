package models_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func newPasskey(t testing.TB, ownerType string, owner uuid.UUID, now time.Time) *models.Passkey {
	t.Helper()
	cred := make([]byte, 32)
	if _, err := rand.Read(cred); err != nil {
		t.Fatal(err)
	}
	return &models.Passkey{ID: newID(t), OwnerType: ownerType, OwnerID: owner, CredentialID: cred, PublicKey: []byte{0xa5, 1},
		SignCount: 7, Transports: pq.StringArray{"internal", "hybrid"}, UserVerified: true, BackupEligible: true, Name: "Phone", CreatedAt: now}
}

// TestPasskeyStore: a credential id is registered once over every owner
// type; lookups, renames and removals see only their owner's passkeys.
func TestPasskeyStore(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.PasskeyStore{}.Prepared(db), testNow()
	owner := createAccount(t, db, models.UserTables, "pk@x.io")
	other := createAccount(t, db, models.UserTables, "pk2@x.io")
	p := newPasskey(t, "user", owner.ID, now)
	if err := store.Insert(ctx, db, p); err != nil {
		t.Fatal(err)
	}
	dup := newPasskey(t, "admin", other.ID, now)
	dup.CredentialID = p.CredentialID
	if err := store.Insert(ctx, db, dup); !errors.Is(err, models.ErrDuplicate) {
		t.Errorf("the same credential id for an admin: %v, want ErrDuplicate", err)
	}
	got, err := store.ByCredentialID(ctx, db, "user", p.CredentialID)
	if err != nil || got.ID != p.ID || got.SignCount != 7 || !got.BackupEligible || got.BackupState || got.LastUsedAt != nil ||
		len(got.Transports) != 2 || !got.UpdatedAt.Equal(now) {
		t.Fatalf("ByCredentialID: %+v, %v", got, err)
	}
	if _, err := store.ByCredentialID(ctx, db, "admin", p.CredentialID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("ByCredentialID for admins: %v", err)
	}
	if _, err := store.Rename(ctx, db, "user", other.ID, p.ID, "Mine", now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Rename by another owner: %v", err)
	}
	if _, err := store.Remove(ctx, db, "user", other.ID, p.ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Remove by another owner: %v", err)
	}
	later := now.Add(time.Minute)
	if r, err := store.Rename(ctx, db, "user", owner.ID, p.ID, "Laptop", later); err != nil || r.Name != "Laptop" || !r.UpdatedAt.Equal(later) {
		t.Errorf("Rename: %+v, %v", r, err)
	}
	if err := store.RecordUse(ctx, db, p.ID, models.PasskeyUse{SignCount: 9, BackupState: true, At: later}); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.ByCredentialID(ctx, db, "user", p.CredentialID); got.SignCount != 9 || !got.BackupState || !got.UserVerified ||
		got.LastUsedAt == nil || !got.LastUsedAt.Equal(later) {
		t.Errorf("after a use: %+v, want count 9, backed up, still verified, used at %v", got, later)
	}
	second := newPasskey(t, "user", owner.ID, later)
	if err := store.Insert(ctx, db, second); err != nil {
		t.Fatal(err)
	}
	if list, err := store.List(ctx, db, "user", owner.ID); err != nil || len(list) != 2 || list[0].ID != second.ID {
		t.Errorf("List: %v, %v, want two, newest first", list, err)
	}
	if r, err := store.Remove(ctx, db, "user", owner.ID, p.ID); err != nil || r.ID != p.ID {
		t.Errorf("Remove: %+v, %v", r, err)
	}
	if n, err := store.RemoveAll(ctx, db, "user", owner.ID); n != 1 || err != nil {
		t.Errorf("RemoveAll: %d, %v", n, err)
	}
}

// TestPasskeyCounterAndFlagsConstraints: the table refuses what no
// authenticator can report.
func TestPasskeyCounterAndFlagsConstraints(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.PasskeyStore{}, testNow()
	owner := createAccount(t, db, models.UserTables, "pkc@x.io")
	for name, change := range map[string]func(p *models.Passkey){
		"webauthn_credentials_sign_count_range":     func(p *models.Passkey) { p.SignCount = 1 << 32 },
		"webauthn_credentials_backup_check":         func(p *models.Passkey) { p.BackupEligible, p.BackupState = false, true },
		"webauthn_credentials_transports_check":     func(p *models.Passkey) { p.Transports = pq.StringArray{"carrier-pigeon"} },
		"webauthn_credentials_name_length":          func(p *models.Passkey) { p.Name = "" },
		"webauthn_credentials_owner_type_check":     func(p *models.Passkey) { p.OwnerType = "robot" },
		"webauthn_credentials_credential_id_length": func(p *models.Passkey) { p.CredentialID = []byte{} },
	} {
		p := newPasskey(t, "user", owner.ID, now)
		change(p)
		err := store.Insert(ctx, db, p)
		if pqErr := pq.As(err); pqErr == nil || pqErr.Constraint != name {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// TestUserHandle: an owner gets one handle, the first stored, whoever
// asks concurrently.
func TestUserHandle(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx, store, now := testCtx(t), models.PasskeyStore{}.Prepared(db), testNow()
	owner := createAccount(t, db, models.UserTables, "uh@x.io")
	if _, err := store.Handle(ctx, db, "user", owner.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("Handle before any: %v", err)
	}
	got := make([][]byte, 8)
	race(8, func(i int) {
		fresh := bytes.Repeat([]byte{byte(i + 1)}, 32)
		h, err := store.UserHandle(ctx, db, "user", owner.ID, fresh, now)
		if err != nil {
			t.Error(err)
		}
		got[i] = h
	})
	for i := range got {
		if len(got[i]) != 32 || !bytes.Equal(got[i], got[0]) {
			t.Fatalf("handles differ: %x", got)
		}
	}
	if admin, err := store.UserHandle(ctx, db, "admin", owner.ID, bytes.Repeat([]byte{0xee}, 32), now); err != nil || bytes.Equal(admin, got[0]) {
		t.Errorf("an admin with the same id: %x, %v, want its own handle", admin, err)
	}
	if _, err := store.UserHandle(ctx, db, "user", newID(t), got[0], now); !errors.Is(err, models.ErrDuplicate) {
		t.Errorf("another owner with the same handle: %v, want ErrDuplicate", err)
	}
}

// TestCeremonyLifecycle: a ceremony is spent once, only for the binding it
// was issued for, only before it expires; Known tells a spent or expired
// ceremony from one never issued for that binding.
func TestCeremonyLifecycle(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	ctx, store, now := testCtx(t), models.CeremonyStore{}.Prepared(db), testNow()
	owner, session, login := newID(t), newID(t), newID(t)
	bound := models.Binding{Purpose: models.CeremonyReauthenticate, OwnerID: &owner, Session: &session}
	insert := func(b models.Binding, expires time.Time) uuid.UUID {
		c := &models.Ceremony{ID: newID(t), OwnerType: "user", Binding: b, SessionData: []byte(`{"challenge":"abc"}`), ExpiresAt: expires, CreatedAt: now}
		if err := store.Insert(ctx, db, c); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	id := insert(bound, now.Add(5*time.Minute))
	wrong := []models.Binding{
		{Purpose: models.CeremonyRegister, OwnerID: &owner, Session: &session},
		{Purpose: models.CeremonyReauthenticate, OwnerID: &login, Session: &session},
		{Purpose: models.CeremonyReauthenticate, OwnerID: &owner},
		{Purpose: models.CeremonyReauthenticate, OwnerID: &owner, Session: &session, LoginChallenge: &login},
	}
	for i, b := range wrong {
		if _, err := store.Spend(ctx, db, id, "user", b, now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("binding %d: Spend %v", i, err)
		}
		if ok, err := store.Known(ctx, db, id, "user", b); ok || err != nil {
			t.Errorf("binding %d: Known %v %v", i, ok, err)
		}
	}
	if _, err := store.Spend(ctx, db, id, "admin", bound, now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Spend for admins: %v", err)
	}
	spent := make([]bool, 8)
	race(8, func(i int) {
		data, err := store.Spend(ctx, db, id, "user", bound, now)
		spent[i] = err == nil && string(data) == `{"challenge": "abc"}`
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			t.Error(err)
		}
	})
	n := 0
	for _, ok := range spent {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("concurrent spends: %d succeeded, want 1", n)
	}
	if ok, err := store.Known(ctx, db, id, "user", bound); !ok || err != nil {
		t.Errorf("Known of a spent ceremony: %v %v", ok, err)
	}
	login2 := models.Binding{Purpose: models.CeremonyLogin}
	expiring := insert(login2, now.Add(time.Minute))
	if _, err := store.Spend(ctx, db, expiring, "user", login2, now.Add(time.Minute)); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Spend at its expiry: %v", err)
	}
	if _, err := store.Spend(ctx, db, expiring, "user", login2, now); err != nil {
		t.Errorf("Spend of an ownerless login: %v", err)
	}
	if n, err := store.Purge(ctx, db, now.Add(90*time.Second), 1); n != 1 || err != nil {
		t.Errorf("Purge: %d %v, want the one expired before the cutoff", n, err)
	}
}

// TestPasskeyIsASecondFactor: an owner with a passkey has a second factor
// (mfa_enabled), as one with a confirmed TOTP does; Factors counts them.
func TestPasskeyIsASecondFactor(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	for _, tables := range []models.OwnerTables{models.UserTables, models.AdminTables} {
		accounts := models.NewAccountStore(tables).Prepared(db)
		owner := createAccount(t, db, tables, "sf-"+tables.Type+"@x.io")
		if acc, err := accounts.ByID(ctx, db, owner.ID); err != nil || acc.MFAEnabled {
			t.Fatalf("%s without factors: %+v %v", tables.Type, acc, err)
		}
		// Another owner type's passkey with this id does not count.
		other := map[string]string{"user": "admin", "admin": "user"}[tables.Type]
		if err := (models.PasskeyStore{}).Insert(ctx, db, newPasskey(t, other, owner.ID, now)); err != nil {
			t.Fatal(err)
		}
		if acc, _ := accounts.ByID(ctx, db, owner.ID); acc.MFAEnabled {
			t.Errorf("%s: a passkey of another owner type counted", tables.Type)
		}
		if err := (models.PasskeyStore{}).Insert(ctx, db, newPasskey(t, tables.Type, owner.ID, now)); err != nil {
			t.Fatal(err)
		}
		if acc, _ := accounts.ByID(ctx, db, owner.ID); !acc.MFAEnabled {
			t.Errorf("%s with a passkey: mfaEnabled false", tables.Type)
		}
		if f, err := (models.FactorStore{}).Factors(ctx, db, tables.Type, owner.ID); err != nil || f.Passkeys != 1 || f.TOTPConfirmedAt != nil {
			t.Errorf("%s Factors: %+v %v", tables.Type, f, err)
		}
	}
}
