package models_test

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestChainsAcrossRotation checks that a chain keeps its id and login time
// through both rotations, and what the chain statements read and end.
func TestChainsAcrossRotation(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, tables := range ownerTables {
		t.Run(tables.Sessions, func(t *testing.T) {
			ctx, store, accounts, now := testCtx(t), models.NewSessionStore(tables), models.NewAccountStore(tables), testNow()
			// Every column distinct, so that a column scanned into the wrong
			// field shows.
			owner := newAccount(t, "chain@x.io")
			login, verified := now.Add(-time.Hour), now.Add(-2*time.Hour)
			owner.FirstName, owner.LastName, owner.Timezone, owner.Locale = "Ada", "Lovelace", "Europe/London", "es"
			owner.LoginCount, owner.LastLoginAt, owner.TokenVersion, owner.EmailVerifiedAt = 3, &login, 7, &verified
			owner.CreatedAt, owner.UpdatedAt = now.Add(-3*time.Hour), now.Add(-time.Minute)
			if err := accounts.Create(ctx, db, owner); err != nil {
				t.Fatal(err)
			}
			other := createAccount(t, db, tables, "other@x.io")
			// A confirmed second factor shows in every read of the owner.
			if _, err := db.ExecContext(ctx, `INSERT INTO mfa_totp (id, owner_type, owner_id, secret_ciphertext, secret_nonce, confirmed_at)
				VALUES ($1, $2, $3, '\x00', '\x000000000000000000000000', now())`, newID(t), tables.Type, owner.ID); err != nil {
				t.Fatal(err)
			}
			provider := "acme"
			assured := models.Assurance{Methods: []string{models.MethodFederated, models.MethodTOTP}, Level: 2,
				AuthenticatedAt: now.Add(-30 * time.Minute), Provider: &provider}
			firstRow := newSession(t, owner.ID, now.Add(-time.Hour))
			firstRow.Assurance = assured
			first := createSession(t, db, store, firstRow)
			if first.SessionID != first.ID || !first.LoginAt.Equal(first.CreatedAt) {
				t.Fatalf("first row: chain %v login %v, want its own id and creation", first.SessionID, first.LoginAt)
			}
			// Rotation in a transaction, then the one-statement rotation.
			second := newSession(t, uuid.Nil, now.Add(-time.Minute))
			second.OwnerID = owner.ID
			if err := models.Transact(ctx, db, func(tx *sqlx.Tx) error {
				return store.Rotate(ctx, tx, first.ID, second, now.Add(-time.Minute))
			}); err != nil {
				t.Fatal(err)
			}
			third := newSession(t, uuid.Nil, now)
			if _, err := store.RotateLive(ctx, db, second.RefreshTokenHash, third, now, models.RefreshBudget{}); err != nil {
				t.Fatal(err)
			}
			for _, id := range []uuid.UUID{second.ID, third.ID} {
				row, err := store.ByID(ctx, db, id)
				if err != nil {
					t.Fatal(err)
				}
				if row.SessionID != first.ID || !row.LoginAt.Equal(first.LoginAt) || !reflect.DeepEqual(row.Assurance, assured) {
					t.Errorf("row %v: chain %v login %v assurance %+v, want %v %v %+v", id, row.SessionID, row.LoginAt, row.Assurance,
						first.ID, first.LoginAt, assured)
				}
			}
			if third.SessionID != first.ID || !third.LoginAt.Equal(first.LoginAt) || !reflect.DeepEqual(third.Assurance, assured) {
				t.Errorf("RotateLive's successor: chain %v login %v assurance %+v", third.SessionID, third.LoginAt, third.Assurance)
			}
			if row, err := accounts.ByIDWithSession(ctx, db, owner.ID, first.ID, now, true); err != nil || !reflect.DeepEqual(row.Session, assured) ||
				!row.MFAEnabled || !row.HasPassword {
				t.Errorf("ByIDWithSession with assurance: %+v, %v, want the chain's assurance, mfaEnabled and hasPassword", row, err)
			}
			if row, err := accounts.ByIDWithSession(ctx, db, owner.ID, first.ID, now, false); err != nil || !reflect.DeepEqual(row.Session, models.Assurance{}) ||
				!row.MFAEnabled || !row.HasPassword || row.SessionExpiresAt == nil {
				t.Errorf("ByIDWithSession without assurance: %+v, %v, want the live expiry, mfaEnabled and hasPassword, no assurance", row, err)
			}
			live, err := store.LiveInChain(ctx, db, owner.ID, first.ID)
			if err != nil || live.ID != third.ID {
				t.Errorf("LiveInChain: %+v, %v, want the third row", live, err)
			}
			if _, err := store.LiveInChain(ctx, db, other.ID, first.ID); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("LiveInChain of another owner: %v, want ErrNotFound", err)
			}
			checkByIDWithSession(t, db, accounts, owner.ID, first.ID, third.ExpiresAt, now)
			if got := checkSessionFor(t, db, accounts, other.ID, first.ID, now); got != nil {
				t.Errorf("another owner's chain: expiry %v, want none", got)
			}
			if ok, err := store.RevokeChain(ctx, db, other.ID, first.ID, now); ok || err != nil {
				t.Errorf("RevokeChain by another owner: %v, %v", ok, err)
			}
			if ok, err := store.RevokeChain(ctx, db, owner.ID, first.ID, now); !ok || err != nil {
				t.Errorf("RevokeChain: %v, %v", ok, err)
			}
			if ok, err := store.RevokeChain(ctx, db, owner.ID, first.ID, now); ok || err != nil {
				t.Errorf("RevokeChain again: %v, %v, want nothing to end", ok, err)
			}
			if got := checkSessionFor(t, db, accounts, owner.ID, first.ID, now); got != nil {
				t.Errorf("an ended session: expiry %v, want none", got)
			}
		})
	}
}

// checkByIDWithSession requires the session to be live until exp at now,
// and dead once exp has passed.
func checkByIDWithSession(t *testing.T, db *sqlx.DB, accounts *models.AccountStore, owner, chain uuid.UUID, exp, now time.Time) {
	t.Helper()
	if got := checkSessionFor(t, db, accounts, owner, chain, now); got == nil || !got.Equal(exp) {
		t.Errorf("live session: expiry %v, want %v", got, exp)
	}
	if got := checkSessionFor(t, db, accounts, owner, chain, exp); got != nil {
		t.Errorf("at its expiry: %v, want none", got)
	}
}

// checkSessionFor reads the owner with ByIDWithSession, requires the
// account ByID reads less its password hash and salt, and returns the
// session's expiry.
func checkSessionFor(t *testing.T, db *sqlx.DB, accounts *models.AccountStore, owner, chain uuid.UUID, now time.Time) *time.Time {
	t.Helper()
	row, err := accounts.ByIDWithSession(testCtx(t), db, owner, chain, now, false)
	if err != nil {
		t.Fatalf("ByIDWithSession: %v", err)
	}
	assured, err := accounts.ByIDWithSession(testCtx(t), db, owner, chain, now, true)
	if err != nil {
		t.Fatalf("ByIDWithSession with assurance: %v", err)
	}
	if !reflect.DeepEqual(assured.Account, row.Account) || !reflect.DeepEqual(assured.SessionExpiresAt, row.SessionExpiresAt) {
		t.Errorf("with assurance: %+v expiring %v, without: %+v expiring %v", assured.Account, assured.SessionExpiresAt,
			row.Account, row.SessionExpiresAt)
	}
	want, err := accounts.ByID(testCtx(t), db, owner)
	if err != nil {
		t.Fatal(err)
	}
	want.Password, want.Salt = "", ""
	if !reflect.DeepEqual(row.Account, *want) {
		t.Errorf("account: got %+v, want %+v (ByID's without password and salt)", row.Account, *want)
	}
	return row.SessionExpiresAt
}

func TestListLiveAndMarkTheft(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewSessionStore(models.UserTables), testNow()
	owner := createAccount(t, db, models.UserTables, "live@x.io")
	old := createSession(t, db, store, newSession(t, owner.ID, now.Add(-2*time.Hour)))
	newer := createSession(t, db, store, newSession(t, owner.ID, now.Add(-time.Hour)))
	gone := createSession(t, db, store, newSession(t, owner.ID, now))
	expired := newSession(t, owner.ID, now)
	expired.ExpiresAt = now.Add(-time.Second)
	createSession(t, db, store, expired)
	if _, err := store.Revoke(ctx, db, gone.ID, now); err != nil {
		t.Fatal(err)
	}
	list, err := store.ListLive(ctx, db, owner.ID, now)
	if err != nil || len(list) != 2 || list[0].SessionID != newer.ID || list[1].SessionID != old.ID {
		t.Fatalf("ListLive: %+v, %v, want the two live sessions newest first", list, err)
	}
	if marked, err := store.MarkTheft(ctx, db, owner.ID, old.SessionID, now); err != nil || !marked {
		t.Fatalf("MarkTheft: %v, %v, want the chain marked", marked, err)
	}
	if again, err := store.MarkTheft(ctx, db, owner.ID, old.SessionID, now.Add(time.Second)); err != nil || again {
		t.Errorf("MarkTheft of a marked chain: %v, %v, want false", again, err)
	}
	for _, s := range []*models.Session{old, newer} {
		got, err := store.ByID(ctx, db, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if marked := got.TheftDetectedAt != nil; marked != (s == old) {
			t.Errorf("session %v: marked %v", s.ID, marked)
		}
	}
	chains, err := store.RevokeAll(ctx, db, owner.ID, now)
	if err != nil || fmt.Sprint(sortedIDs(chains)) != fmt.Sprint(sortedIDs([]uuid.UUID{old.SessionID, newer.SessionID, expired.SessionID})) {
		t.Errorf("RevokeAll: %v, %v, want the three chains not revoked yet", chains, err)
	}
}

func sortedIDs(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	sort.Strings(out)
	return out
}
