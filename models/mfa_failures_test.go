package models_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// TestMFAFailuresCountOneByOne: concurrent failures of one owner, each in
// a transaction of its own at the same instant, count one by one and only
// one of them is the notice; a failure a day later notices again, Clear
// starts the count over and keeps the notice time, and another owner (or
// owner type) is untouched.
func TestMFAFailuresCountOneByOne(t *testing.T) {
	t.Parallel()
	db := openPool(t, 8)
	for _, tables := range ownerTables {
		store := models.NewMFAFailureStore(tables).Prepared(db)
		a := createAccount(t, db, tables, "budget-"+tables.Type+"@example.com")
		other := createAccount(t, db, tables, "other-"+tables.Type+"@example.com")
		now := testNow()
		var notices atomic.Int32
		fail := func(at time.Time) models.MFAFailure {
			var f models.MFAFailure
			err := models.Transact(testCtx(t), db, func(tx *sqlx.Tx) error {
				var err error
				f, err = store.Failed(testCtx(t), tx, a.ID, at, 10, 24*time.Hour)
				return err
			})
			if err != nil {
				t.Errorf("Failed: %v", err)
			}
			return f
		}
		race(20, func(int) {
			if fail(now).Notice {
				notices.Add(1)
			}
		})
		if n, err := store.Count(testCtx(t), db, a.ID); n != 20 || err != nil || notices.Load() != 1 {
			t.Fatalf("%s: count %d (%v), %d notices after 20 concurrent failures; want 20 and 1", tables.Type, n, err, notices.Load())
		}
		if f := fail(now.Add(23 * time.Hour)); f.Notice || f.Count != 21 {
			t.Errorf("%s: a failure within the day: %+v", tables.Type, f)
		}
		if f := fail(now.Add(24 * time.Hour)); !f.Notice || f.Count != 22 {
			t.Errorf("%s: a failure a day later: %+v, want a notice", tables.Type, f)
		}
		if err := store.Clear(testCtx(t), db, a.ID); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if f := fail(now.Add(25 * time.Hour)); f.Notice || f.Count != i+1 {
				t.Errorf("%s: failure %d after Clear: %+v, want no notice the same day", tables.Type, i+1, f)
			}
		}
		if n, err := store.Count(testCtx(t), db, other.ID); n != 0 || err != nil {
			t.Errorf("%s: another owner's count %d, %v", tables.Type, n, err)
		}
	}
	if _, err := models.NewMFAFailureStore(models.UserTables).Count(testCtx(t), db, newID(t)); err != models.ErrNotFound {
		t.Errorf("Count of no owner: %v, want ErrNotFound", err)
	}
}
