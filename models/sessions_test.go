package models_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestSessionCreateAndRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewSessionStore(tables), testNow()
			owner := createAccount(t, db, tables, "s@x.io")
			prev := createSession(t, db, store, newSession(t, owner.ID, now))
			ip, provider := "203.0.113.9", "acme"
			used, revoked := now.Add(-time.Minute), now.Add(-time.Second)
			sess := &models.Session{
				ID: newID(t), OwnerID: owner.ID, ReplacedBySessionID: &prev.ID,
				RefreshTokenHash: randomHex(t, 32), ExpiresAt: now.Add(time.Hour),
				RevokedAt: &revoked, LastUsedAt: &used,
				UserAgent: []byte(`{"ua":"Mozilla/5.0","v":[1,2]}`),
				IPAddress: &ip, Client: "app", Platform: "ios",
				CreatedAt: now.Add(-time.Hour), UpdatedAt: now,
				Assurance: models.Assurance{Methods: []string{models.MethodFederated, models.MethodTOTP}, Level: 2, Provider: &provider},
			}
			want := *sess
			// A session without a chain starts its own, at its creation,
			// which is also its last authentication unless given.
			want.SessionID, want.LoginAt, want.AuthenticatedAt = sess.ID, sess.CreatedAt, sess.CreatedAt
			// jsonb reads back in its canonical form: spaced, shorter keys first.
			want.UserAgent = []byte(`{"v": [1, 2], "ua": "Mozilla/5.0"}`)
			if err := store.Create(ctx, db, sess); err != nil {
				t.Fatalf("Create: %v", err)
			}
			for name, get := range map[string]func() (*models.Session, error){
				"ByID":   func() (*models.Session, error) { return store.ByID(ctx, db, sess.ID) },
				"ByHash": func() (*models.Session, error) { return store.ByHash(ctx, db, sess.RefreshTokenHash) },
			} {
				got, err := get()
				if err != nil || !reflect.DeepEqual(*got, want) {
					t.Errorf("%s: got %+v, %v, want %+v", name, got, err, want)
				}
			}
			// NULL columns read back as nil; zero timestamps become now().
			got, err := store.ByID(ctx, db, prev.ID)
			if err != nil || got.UserAgent != nil || got.IPAddress != nil || got.ReplacedBySessionID != nil ||
				got.CreatedAt.IsZero() || got.CreatedAt.Location() != time.UTC {
				t.Errorf("ByID of a minimal session: got %+v, %v, want NULLs as nil and a UTC created_at", got, err)
			}

			dupHash := newSession(t, owner.ID, now)
			dupHash.RefreshTokenHash = sess.RefreshTokenHash
			wantErr(t, "Create with a used hash", store.Create(ctx, db, dupHash), models.ErrDuplicate)
			_, err = store.ByHash(ctx, db, randomHex(t, 32))
			wantErr(t, "ByHash unknown", err, models.ErrNotFound)
			_, err = store.ByID(ctx, db, newID(t))
			wantErr(t, "ByID unknown", err, models.ErrNotFound)
		})
	}
}

// TestSessionBinaryParameters runs the stores over a pool opened with lib/pq's
// binary_parameters=yes (one round trip per statement instead of two), which
// sends []byte arguments in binary format.
func TestSessionBinaryParameters(t *testing.T) {
	t.Parallel()
	db := openPool(t, 2, "binary_parameters=yes")
	ctx, now := testCtx(t), testNow()
	store := models.NewSessionStore(models.UserTables)
	owner := createAccount(t, db, models.UserTables, "bin@x.io")
	old := newSession(t, owner.ID, now)
	old.UserAgent = []byte(`{"ua": "x"}`)
	createSession(t, db, store, old)
	next := newSession(t, owner.ID, now)
	next.UserAgent = old.UserAgent
	if err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, old.ID, next, now) }); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	for _, id := range []uuid.UUID{old.ID, next.ID} {
		got, err := store.ByID(ctx, db, id)
		if err != nil || string(got.UserAgent) != `{"ua": "x"}` {
			t.Errorf("ByID %s: got %+v, %v, want user_agent {\"ua\": \"x\"}", id, got, err)
		}
	}
}

func TestSessionState(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	next := uuid.Must(uuid.NewV7())
	revoked := now.Add(-time.Hour)
	tests := []struct {
		name      string
		expiresAt time.Time
		revokedAt *time.Time
		replaced  *uuid.UUID
		want      models.SessionState
	}{
		{"active, expiring a microsecond after now", now.Add(time.Microsecond), nil, nil, models.SessionActive},
		{"expired, expiring at now", now, nil, nil, models.SessionExpired},
		{"expired, expiring before now", now.Add(-time.Microsecond), nil, nil, models.SessionExpired},
		{"revoked, not expired", now.Add(time.Hour), &revoked, nil, models.SessionRevoked},
		{"revoked, expired", now, &revoked, nil, models.SessionRevoked},
		{"rotated, not expired", now.Add(time.Hour), &revoked, &next, models.SessionRotated},
		{"rotated, expired", now, &revoked, &next, models.SessionRotated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := models.Session{ExpiresAt: tt.expiresAt, RevokedAt: tt.revokedAt, ReplacedBySessionID: tt.replaced}
			if got := s.State(now); got != tt.want {
				t.Errorf("State: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRotate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewSessionStore(tables), testNow()
			owner := createAccount(t, db, tables, "r@x.io")
			old := createSession(t, db, store, newSession(t, owner.ID, now.Add(-time.Hour)))
			next := newSession(t, owner.ID, now)
			err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, old.ID, next, now) })
			if err != nil {
				t.Fatalf("Rotate: %v", err)
			}
			got, err := store.ByID(ctx, db, old.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.State(now) != models.SessionRotated || *got.ReplacedBySessionID != next.ID {
				t.Errorf("old: got state %q replaced by %v, want rotated, replaced by %s", got.State(now), got.ReplacedBySessionID, next.ID)
			}
			for name, ts := range map[string]*time.Time{"revoked_at": got.RevokedAt, "last_used_at": got.LastUsedAt, "updated_at": &got.UpdatedAt} {
				if ts == nil || !ts.Equal(now) {
					t.Errorf("old %s: got %v, want %v", name, ts, now)
				}
			}
			succ, err := store.ByHash(ctx, db, next.RefreshTokenHash)
			if err != nil || succ.ID != next.ID || succ.State(now) != models.SessionActive || !succ.CreatedAt.Equal(now) {
				t.Errorf("successor: got %+v, %v, want active session %s created at %v", succ, err, next.ID, now)
			}
		})
	}
}

func TestRotateRevokedConflicts(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, now := testCtx(t), testNow()
	store := models.NewSessionStore(models.UserTables)
	owner := createAccount(t, db, models.UserTables, "c@x.io")
	rotators := map[string]func(context.Context, models.DB, uuid.UUID, *models.Session, time.Time) error{
		"one statement":  store.Rotate,
		"two statements": models.NewTwoStatementRotator(models.UserTables).Rotate,
	}
	for name, rotate := range rotators {
		t.Run(name, func(t *testing.T) {
			old := createSession(t, db, store, newSession(t, owner.ID, now))
			if changed, err := store.Revoke(ctx, db, old.ID, now); err != nil || !changed {
				t.Fatalf("Revoke: got %v, %v, want true", changed, err)
			}
			next := newSession(t, owner.ID, now)
			err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return rotate(ctx, tx, old.ID, next, now) })
			wantErr(t, "Rotate of a revoked session", err, models.ErrConflict)
			_, err = store.ByID(ctx, db, next.ID)
			wantErr(t, "successor after the rollback", err, models.ErrNotFound)
			got, err := store.ByID(ctx, db, old.ID)
			if err != nil || got.State(now) != models.SessionRevoked {
				t.Errorf("old after the conflict: got %+v, %v, want still revoked", got, err)
			}
		})
	}
	// The one-statement rotation writes nothing on a conflict, even without
	// a transaction to roll back; an unknown old session conflicts too.
	old := createSession(t, db, store, newSession(t, owner.ID, now))
	if _, err := store.Revoke(ctx, db, old.ID, now); err != nil {
		t.Fatal(err)
	}
	for _, oldID := range []uuid.UUID{old.ID, newID(t)} {
		next := newSession(t, owner.ID, now)
		wantErr(t, "Rotate outside a Tx", store.Rotate(ctx, db, oldID, next, now), models.ErrConflict)
		_, err := store.ByID(ctx, db, next.ID)
		wantErr(t, "successor of a conflicting Rotate outside a Tx", err, models.ErrNotFound)
	}
}

func TestRotateConcurrent(t *testing.T) {
	t.Parallel()
	const n = 20
	db := openPool(t, n)
	ctx, now := testCtx(t), testNow()
	store := models.NewSessionStore(models.UserTables)
	owner := createAccount(t, db, models.UserTables, "many@x.io")
	old := createSession(t, db, store, newSession(t, owner.ID, now))
	errs := make([]error, n)
	race(n, func(i int) {
		next := newSession(t, owner.ID, now)
		errs[i] = models.Transact(ctx, db, func(tx *sqlx.Tx) error { return store.Rotate(ctx, tx, old.ID, next, now) })
	})
	var ok, conflicts int
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, models.ErrConflict):
			conflicts++
		default:
			t.Errorf("rotation %d: got %v, want nil or ErrConflict", i, err)
		}
	}
	if ok != 1 || conflicts != n-1 {
		t.Errorf("outcomes: got %d successes and %d conflicts, want 1 and %d", ok, conflicts, n-1)
	}
	if got := count(t, db, `SELECT count(*) FROM user_sessions`); got != 2 {
		t.Errorf("sessions after the race: got %d, want 2 (the old one and one successor)", got)
	}
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store := testCtx(t), models.NewSessionStore(models.UserTables)
	first, later := testNow(), testNow().Add(time.Hour)
	owner := createAccount(t, db, models.UserTables, "o@x.io")
	sess := createSession(t, db, store, newSession(t, owner.ID, first))
	for i, want := range []bool{true, false} {
		if got, err := store.Revoke(ctx, db, sess.ID, []time.Time{first, later}[i]); err != nil || got != want {
			t.Errorf("Revoke call %d: got %v, %v, want %v", i+1, got, err, want)
		}
	}
	got, err := store.ByID(ctx, db, sess.ID)
	if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(first) || got.State(first) != models.SessionRevoked {
		t.Errorf("after two Revokes: got %+v, %v, want revoked at %v", got, err, first)
	}
	if changed, err := store.Revoke(ctx, db, newID(t), first); err != nil || changed {
		t.Errorf("Revoke of an unknown id: got %v, %v, want false, nil", changed, err)
	}
}

func TestRevokeByHash(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewSessionStore(tables), testNow()
			owner := createAccount(t, db, tables, "mine@x.io")
			other := createAccount(t, db, tables, "theirs@x.io")
			theirs := createSession(t, db, store, newSession(t, other.ID, now))
			mine := createSession(t, db, store, newSession(t, owner.ID, now))
			tests := []struct {
				name string
				hash string
				want bool
			}{
				{"another owner's session", theirs.RefreshTokenHash, false},
				{"unknown hash", randomHex(t, 32), false},
				{"own session", mine.RefreshTokenHash, true},
				{"own session again", mine.RefreshTokenHash, false},
			}
			for _, tt := range tests {
				chain, got, err := store.RevokeByHash(ctx, db, owner.ID, tt.hash, now)
				if err != nil || got != tt.want {
					t.Errorf("RevokeByHash, %s: got %v, %v, want %v", tt.name, got, err, tt.want)
				}
				if got && chain != mine.SessionID {
					t.Errorf("RevokeByHash, %s: chain %v, want the session's %v", tt.name, chain, mine.SessionID)
				}
			}
			if got, err := store.ByID(ctx, db, theirs.ID); err != nil || got.RevokedAt != nil {
				t.Errorf("another owner's session: got %+v, %v, want not revoked", got, err)
			}
		})
	}
}

func TestRevokeAll(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, now := testCtx(t), models.NewSessionStore(tables), testNow()
			earlier := now.Add(-time.Hour)
			owner := createAccount(t, db, tables, "all@x.io")
			other := createAccount(t, db, tables, "else@x.io")
			gone := createSession(t, db, store, newSession(t, owner.ID, now))
			if _, err := store.Revoke(ctx, db, gone.ID, earlier); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				createSession(t, db, store, newSession(t, owner.ID, now))
			}
			elsewhere := createSession(t, db, store, newSession(t, other.ID, now))
			if chains, err := store.RevokeAll(ctx, db, owner.ID, now); err != nil || len(chains) != 3 {
				t.Errorf("RevokeAll: got %v, %v, want 3 chains", chains, err)
			}
			list, err := store.ListByOwner(ctx, db, owner.ID)
			if err != nil || len(list) != 4 {
				t.Fatalf("ListByOwner: got %d sessions, %v, want 4", len(list), err)
			}
			for _, s := range list {
				want := now
				if s.ID == gone.ID {
					want = earlier
				}
				if s.RevokedAt == nil || !s.RevokedAt.Equal(want) {
					t.Errorf("session %s revoked_at: got %v, want %v", s.ID, s.RevokedAt, want)
				}
			}
			if got, err := store.ByID(ctx, db, elsewhere.ID); err != nil || got.RevokedAt != nil {
				t.Errorf("another owner's session: got %+v, %v, want not revoked", got, err)
			}
		})
	}
}

func TestListByOwnerOrder(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewSessionStore(models.UserTables), testNow()
	owner := createAccount(t, db, models.UserTables, "l@x.io")
	// Created out of order; two share a created_at and are ordered by id.
	at := []time.Time{now.Add(2 * time.Second), now, now.Add(time.Second), now}
	var ids []uuid.UUID
	for _, ts := range at {
		s := newSession(t, owner.ID, now)
		s.CreatedAt = ts
		ids = append(ids, createSession(t, db, store, s).ID)
	}
	want := []uuid.UUID{ids[1], ids[3], ids[2], ids[0]} // ids[1] < ids[3]: v7 ids grow
	list, err := store.ListByOwner(ctx, db, owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []uuid.UUID
	for _, s := range list {
		got = append(got, s.ID)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order: got %v, want %v", got, want)
	}
	if list, err := store.ListByOwner(ctx, db, newID(t)); err != nil || len(list) != 0 {
		t.Errorf("ListByOwner of a stranger: got %v, %v, want none", list, err)
	}
}
