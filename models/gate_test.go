package models_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestPoolServesInArrivalOrder: with every connection of a pool built by
// Open in use, transactions and store statements get one in the order they
// asked (database/sql alone hands a freed connection to a waiter at
// random).
func TestPoolServesInArrivalOrder(t *testing.T) {
	ctx := context.Background()
	db, err := models.Open(ctx, pgtest.NewDSN(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions := models.NewSessionStore(models.UserTables).Prepared(db)
	hold, held := make(chan struct{}), make(chan struct{})
	go func() {
		_ = models.Transact(ctx, db, func(*sqlx.Tx) error {
			close(held)
			<-hold
			return nil
		})
	}()
	<-held
	const n = 12
	order := make(chan int, n)
	for i := range n {
		go func() {
			var err error
			if i%2 == 0 {
				err = models.Transact(ctx, db, func(tx *sqlx.Tx) error {
					_, err := tx.ExecContext(ctx, "SELECT 1")
					return err
				})
			} else {
				if _, err = sessions.ByHash(ctx, db, "no such hash"); errors.Is(err, models.ErrNotFound) {
					err = nil
				}
			}
			if err != nil {
				t.Error(err)
			}
			order <- i
		}()
		for w := models.PoolWaiting(db); w != i+1; w = models.PoolWaiting(db) {
			if w < 0 {
				t.Fatal("the pool has no gate")
			}
			runtime.Gosched()
		}
	}
	close(hold)
	for want := range n {
		if got := <-order; got != want {
			t.Fatalf("caller %d was served in place %d", got, want)
		}
	}
}
