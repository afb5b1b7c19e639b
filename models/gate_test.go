package models_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestPoolServesInArrivalOrder: with every connection of a pool built by
// Open in use, transactions and store statements get one in the order they
// asked (database/sql alone hands a freed connection to a waiter at
// random). Each caller writes its number while it holds the pool's one
// connection, so the table's order is the order they were served in.
func TestPoolServesInArrivalOrder(t *testing.T) {
	ctx := context.Background()
	db, err := models.Open(ctx, pgtest.NewDSN(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE served (seq serial PRIMARY KEY, caller int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const insert = `INSERT INTO served (caller) VALUES ($1)`
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = models.Transact(ctx, db, func(*sqlx.Tx) error {
			close(held)
			<-hold
			return nil
		})
	})
	<-held
	const n = 12
	for i := range n {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				err = models.Transact(ctx, db, func(tx *sqlx.Tx) error {
					_, err := tx.ExecContext(ctx, insert, i)
					return err
				})
			} else {
				err = models.GatedExec(ctx, db, insert, i)
			}
			if err != nil {
				t.Error(err)
			}
		})
		for w := models.PoolWaiting(db); w != i+1; w = models.PoolWaiting(db) {
			if w < 0 {
				close(hold)
				wg.Wait()
				t.Fatal("the pool has no gate")
			}
			runtime.Gosched()
		}
	}
	close(hold)
	wg.Wait()
	var order []int
	if err := sqlx.SelectContext(ctx, db, &order, `SELECT caller FROM served ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	if len(order) != n {
		t.Fatalf("%d callers wrote, want %d", len(order), n)
	}
	for want, got := range order {
		if got != want {
			t.Fatalf("served in the order %v, want 0 to %d in turn", order, n-1)
		}
	}
}
