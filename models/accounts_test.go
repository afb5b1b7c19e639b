package models_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestAccountCreateAndRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Owners, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewAccountStore(tables), testNow()
			login := now.Add(-time.Hour)
			a := &models.Account{
				ID: newID(t), Email: "Mixed.Case@X.io", Password: "enc", Salt: "s",
				FirstName: "Ada", LastName: "Lovelace", Timezone: "Europe/London", Locale: "en",
				IsActive: true, LoginCount: 3, LastLoginAt: &login, TokenVersion: 2,
				CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now,
			}
			want := *a
			want.HasPassword = true // derived from the password column
			if err := store.Create(ctx, db, a); err != nil {
				t.Fatalf("Create: %v", err)
			}
			if !reflect.DeepEqual(*a, want) {
				t.Errorf("after Create: got %+v, want %+v", *a, want)
			}
			byID, err := store.ByID(ctx, db, a.ID)
			if err != nil || !reflect.DeepEqual(*byID, want) {
				t.Errorf("ByID: got %+v, %v, want %+v", byID, err, want)
			}
			for _, email := range []string{"mixed.case@x.io", "MIXED.CASE@X.IO", "Mixed.Case@X.io"} {
				got, err := store.ByEmail(ctx, db, email)
				if err != nil || got.ID != a.ID {
					t.Errorf("ByEmail(%q): got %v, %v, want account %s", email, got, err, a.ID)
				}
			}
		})
	}
}

func TestAccountCreateDefaultsTimestamps(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	a := newAccount(t, "d@x.io")
	before := time.Now()
	if err := models.NewAccountStore(models.UserTables).Create(testCtx(t), db, a); err != nil {
		t.Fatal(err)
	}
	if a.CreatedAt.Location() != time.UTC || a.UpdatedAt != a.CreatedAt {
		t.Errorf("timestamps: got created %v, updated %v, want equal and in UTC", a.CreatedAt, a.UpdatedAt)
	}
	if d := a.CreatedAt.Sub(before); d < -time.Minute || d > time.Minute {
		t.Errorf("created_at: got %v, want about %v", a.CreatedAt, before)
	}
}

func TestAccountCreateDuplicate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store := testCtx(t), models.NewAccountStore(models.UserTables)
	createAccount(t, db, models.UserTables, "taken@x.io")
	deleted := createAccount(t, db, models.UserTables, "gone@x.io")
	if err := store.SoftDelete(ctx, db, deleted.ID, testNow()); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"taken@x.io", "TAKEN@x.io", "gone@x.io", "Gone@X.IO"} {
		wantErr(t, "Create "+email, store.Create(ctx, db, newAccount(t, email)), models.ErrDuplicate)
	}
	// An admin may use a user's address: the tables are separate.
	if err := models.NewAccountStore(models.AdminTables).Create(ctx, db, newAccount(t, "taken@x.io")); err != nil {
		t.Errorf("admin with a user's address: got %v, want nil", err)
	}
}

func TestAccountNotFound(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now, id := testCtx(t), models.NewAccountStore(models.UserTables), testNow(), newID(t)
	tests := []struct {
		name string
		call func() error
	}{
		{"ByID", func() error { _, err := store.ByID(ctx, db, id); return err }},
		{"ByEmail", func() error { _, err := store.ByEmail(ctx, db, "nobody@x.io"); return err }},
		{"RecordLogin", func() error { _, err := store.RecordLogin(ctx, db, id, now); return err }},
		{"SetPassword", func() error { return store.SetPassword(ctx, db, id, "e", "s", now) }},
		{"BumpTokenVersion", func() error { _, err := store.BumpTokenVersion(ctx, db, id, now); return err }},
		{"LockForUpdate", func() error { _, err := store.LockForUpdate(ctx, db, id); return err }},
		{"SetActive", func() error { return store.SetActive(ctx, db, id, false, now) }},
		{"SoftDelete", func() error { return store.SoftDelete(ctx, db, id, now) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.name, tt.call(), models.ErrNotFound) })
	}
}

func TestRecordLoginConcurrent(t *testing.T) {
	t.Parallel()
	db := openPool(t, 10)
	store, now := models.NewAccountStore(models.UserTables), testNow()
	a := createAccount(t, db, models.UserTables, "busy@x.io")
	errs := make([]error, 10)
	race(10, func(i int) { _, errs[i] = store.RecordLogin(testCtx(t), db, a.ID, now) })
	for i, err := range errs {
		if err != nil {
			t.Errorf("RecordLogin %d: %v", i, err)
		}
	}
	got, err := store.ByID(testCtx(t), db, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.LoginCount != 10 {
		t.Errorf("login_count: got %d, want 10", got.LoginCount)
	}
	if got.LastLoginAt == nil || !got.LastLoginAt.Equal(now) || !got.UpdatedAt.Equal(now) {
		t.Errorf("last_login_at, updated_at: got %v, %v, want %v", got.LastLoginAt, got.UpdatedAt, now)
	}
}

func TestRecordLoginRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewAccountStore(models.UserTables), testNow()
	inactive := createAccount(t, db, models.UserTables, "inactive@x.io")
	if err := store.SetActive(ctx, db, inactive.ID, false, now); err != nil {
		t.Fatal(err)
	}
	deleted := createAccount(t, db, models.UserTables, "deleted@x.io")
	if err := store.SoftDelete(ctx, db, deleted.ID, now); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*models.Account{inactive, deleted} {
		_, err := store.RecordLogin(ctx, db, a.ID, now)
		wantErr(t, "RecordLogin "+a.Email, err, models.ErrNotFound)
		got, err := store.ByID(ctx, db, a.ID)
		if err != nil || got.LoginCount != 0 || got.LastLoginAt != nil {
			t.Errorf("%s after refused login: got %+v, %v, want login_count 0, no last_login_at", a.Email, got, err)
		}
	}
	// Reactivated, the account logs in again.
	if err := store.SetActive(ctx, db, inactive.ID, true, now); err != nil {
		t.Fatal(err)
	}
	if got, err := store.RecordLogin(ctx, db, inactive.ID, now); err != nil || got.LoginCount != 1 {
		t.Errorf("RecordLogin after SetActive(true): got %+v, %v, want login_count 1", got, err)
	}
}

func TestAccountUpdates(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewAccountStore(models.UserTables), testNow()
	a := createAccount(t, db, models.UserTables, "u@x.io")
	for want := int64(1); want <= 2; want++ {
		if got, err := store.BumpTokenVersion(ctx, db, a.ID, now); err != nil || got != want {
			t.Errorf("BumpTokenVersion: got %d, %v, want %d", got, err, want)
		}
	}
	if err := store.SetPassword(ctx, db, a.ID, "new-hash", "new-salt", now); err != nil {
		t.Fatal(err)
	}
	first, later := now.Add(-time.Hour), now
	if err := store.SoftDelete(ctx, db, a.ID, first); err != nil {
		t.Fatal(err)
	}
	if err := store.SoftDelete(ctx, db, a.ID, later); err != nil {
		t.Fatal(err)
	}
	got, err := store.ByID(ctx, db, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.TokenVersion != 2 || got.Password != "new-hash" || got.Salt != "new-salt" {
		t.Errorf("token_version, password, salt: got %d, %q, %q, want 2, new-hash, new-salt", got.TokenVersion, got.Password, got.Salt)
	}
	if got.DeletedAt == nil || !got.DeletedAt.Equal(first) {
		t.Errorf("deleted_at after two SoftDeletes: got %v, want the first, %v", got.DeletedAt, first)
	}
	if got.DeletedAt.Location() != time.UTC {
		t.Errorf("deleted_at location: got %v, want UTC", got.DeletedAt.Location())
	}
}

func TestLockOwnerAndReadBothOwnerTypes(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Owners, func(t *testing.T) {
			ctx, now := testCtx(t), testNow()
			sessions := models.NewSessionStore(tables)
			a := createAccount(t, db, tables, "lock@x.io")
			createAccount(t, db, tables, "other@x.io")
			sess := createSession(t, db, sessions, newSession(t, a.ID, now))
			got, gotSess, err := sessions.LockOwnerAndRead(ctx, db, sess.RefreshTokenHash)
			if err != nil || got.ID != a.ID || got.Email != a.Email || gotSess.ID != sess.ID {
				t.Errorf("LockOwnerAndRead: got %+v, %+v, %v, want account %s", got, gotSess, err, a.ID)
			}
			_, _, err = sessions.LockOwnerAndRead(ctx, db, randomHex(t, 32))
			wantErr(t, "LockOwnerAndRead of an unknown hash", err, models.ErrNotFound)
		})
	}
}

// TestLockOwnerAndReadHoldsLock shows that the owner row lock taken by
// LockOwnerAndRead holds until commit: another transaction's LockForUpdate
// cannot get it before the deadline, and one that waits returns only after
// the commit, with the committed change.
func TestLockOwnerAndReadHoldsLock(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t) // 4 connections: tx1, tx2, the observer
	ctx, now := testCtx(t), testNow()
	store := models.NewAccountStore(models.UserTables)
	a := createAccount(t, db, models.UserTables, "held@x.io")
	sessions := models.NewSessionStore(models.UserTables)
	sess := createSession(t, db, sessions, newSession(t, a.ID, now))

	tx1 := db.MustBeginTx(ctx, nil)
	defer tx1.Rollback()
	if _, _, err := sessions.LockOwnerAndRead(ctx, tx1, sess.RefreshTokenHash); err != nil {
		t.Fatalf("LockOwnerAndRead: %v", err)
	}

	// 1. While tx1 holds the row, a second transaction cannot lock it.
	tx2 := db.MustBeginTx(ctx, nil)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err := store.LockForUpdate(short, tx2, a.ID)
	if err == nil || short.Err() == nil {
		t.Errorf("LockForUpdate beside the lock: got %v before the deadline, want to block until it", err)
	}
	cancel()
	_ = tx2.Rollback()

	// 2. A waiting LockForUpdate returns after tx1 commits, and sees its write.
	tx2 = db.MustBeginTx(ctx, nil)
	defer tx2.Rollback()
	type result struct {
		a   *models.Account
		err error
	}
	got := make(chan result, 1)
	go func() {
		a, err := store.LockForUpdate(ctx, tx2, a.ID)
		got <- result{a, err}
	}()
	waitForLockWaiter(t, db)
	select {
	case r := <-got:
		t.Fatalf("LockForUpdate returned while tx1 held the lock: %+v, %v", r.a, r.err)
	default:
	}
	if _, err := store.BumpTokenVersion(ctx, tx1, a.ID, now); err != nil {
		t.Fatal(err)
	}
	if err := tx1.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil || r.a.TokenVersion != 1 {
		t.Errorf("LockForUpdate after the commit: got %+v, %v, want token_version 1", r.a, r.err)
	}
}

func TestAccountQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := testCtx(t)
	// Enough rows, and statistics, that a sequential scan would be chosen
	// if the index could not serve the query.
	for _, q := range []string{
		`INSERT INTO users (id, email, password, salt)
			SELECT gen_random_uuid(), 'u' || g || '@x.io', 'h', 's' FROM generate_series(1, 5000) g`,
		`INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, chain_id, login_at)
			SELECT g, id, encode(sha256(id::text::bytea), 'hex'), now(), g, now()
			FROM (SELECT gen_random_uuid() AS g, id FROM users) u`,
		`ANALYZE users`, `ANALYZE user_sessions`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	accounts, sessions := models.NewAccountStore(models.UserTables), models.NewSessionStore(models.UserTables)
	hash := strings.Repeat("ab", 32)
	id := "0199a7a0-0000-7000-8000-000000000000"
	tests := []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"ByEmail", accounts.ByEmailSQL(), []any{"U42@X.io"}, []string{"Index Scan using users_email_lower_key"}},
		{"ByHash", sessions.ByHashSQL(), []any{hash}, []string{"Index Scan using user_sessions_refresh_token_hash_key"}},
		{"LockOwnerAndRead", sessions.LockOwnerAndReadSQL(), []any{hash},
			[]string{"Index Scan using users_pkey", "Index Scan using user_sessions_refresh_token_hash_key"}},
		// The session check of every authenticated request: the owner by
		// primary key, its session's live row through the partial index.
		{"ByIDWithSession", accounts.ByIDWithSessionSQL(), []any{id, id},
			[]string{"Index Scan using users_pkey", "Index Scan using user_sessions_chain_live_idx"}},
		{"ByIDWithSession with assurance", accounts.ByIDWithAssuranceSQL(), []any{id, id},
			[]string{"Index Scan using users_pkey", "Index Scan using user_sessions_chain_live_idx"}},
		// The socket sweep: each chain's live row through the partial
		// index, its owner by primary key.
		{"LiveSessions", accounts.LiveSessionsSQL(), []any{pq.StringArray{id, "0199a7a0-0000-7000-8000-000000000001"}},
			[]string{"user_sessions_chain_live_idx", "users_pkey"}},
		{"List", accounts.ListSQL(), []any{"", "all", nil, nil, 50}, []string{"Index Scan Backward using users_created_at_idx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := explain(t, db, tt.query, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(plan, w) {
					t.Errorf("plan: got\n%s\nwant %q", plan, w)
				}
			}
			if strings.Contains(plan, "Seq Scan") {
				t.Errorf("plan: got\n%s\nwant no Seq Scan", plan)
			}
		})
	}
}

func TestNewStoresRejectBadNames(t *testing.T) {
	bad := []models.OwnerTables{
		{Owners: "", Sessions: "s", OwnerColumn: "c", Type: "t"},
		{Owners: "Users", Sessions: "user_sessions", OwnerColumn: "user_id", Type: "user"},
		{Owners: "users; DROP TABLE users", Sessions: "user_sessions", OwnerColumn: "user_id", Type: "user"},
		{Owners: "users", Sessions: "user sessions", OwnerColumn: "user_id", Type: "user"},
		{Owners: "users", Sessions: "user_sessions", OwnerColumn: "user_id2", Type: "user"},
		{Owners: "public.users", Sessions: "user_sessions", OwnerColumn: "user_id", Type: "user"},
		{Owners: "users", Sessions: "user_sessions", OwnerColumn: "user_id"},
		{Owners: "users", Sessions: "user_sessions", OwnerColumn: "user_id", Type: "user'"},
	}
	for _, tables := range bad {
		for name, build := range map[string]func(){
			"NewAccountStore": func() { models.NewAccountStore(tables) },
			"NewSessionStore": func() { models.NewSessionStore(tables) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%+v): got no panic, want one", name, tables)
					}
				}()
				build()
			}()
		}
	}
}

func BenchmarkByID(b *testing.B) {
	db := pgtest.New(b)
	ctx, store := testCtx(b), models.NewAccountStore(models.UserTables)
	a := createAccount(b, db, models.UserTables, "bench@x.io")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.ByID(ctx, db, a.ID); err != nil {
			b.Fatal(err)
		}
	}
}
