package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/jmoiron/sqlx"
)

// freeSlots returns the free slots of g.
func (g *gate) freeSlots() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.free
}

// waitFor yields until cond holds.
func waitFor(cond func() bool) {
	for !cond() {
		runtime.Gosched()
	}
}

// TestGateFirstComeFirstServed: callers that find the gate full pass in the
// order they came.
func TestGateFirstComeFirstServed(t *testing.T) {
	g := newGate(1)
	ctx := context.Background()
	if err := g.enter(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 16
	order := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.enter(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- i
			g.leave()
		}()
		waitFor(func() bool { return g.waiting() == i+1 })
	}
	g.leave()
	for want := range n {
		if got := <-order; got != want {
			t.Fatalf("caller %d passed in place %d", got, want)
		}
	}
	wg.Wait()
	if free := g.freeSlots(); free != 1 || g.waiting() != 0 {
		t.Errorf("after all left: %d free, %d waiting; want 1, 0", free, g.waiting())
	}
}

// TestGateContext: a caller whose context ends while it waits takes no
// slot and leaves the queue; one that finds a free slot takes it.
func TestGateContext(t *testing.T) {
	g := newGate(1)
	if err := g.enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- g.enter(ctx) }()
	waitFor(func() bool { return g.waiting() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("enter with its context cancelled: %v, want context.Canceled", err)
	}
	if g.waiting() != 0 {
		t.Fatalf("%d waiting after the cancelled caller left, want 0", g.waiting())
	}
	g.leave()
	if err := g.enter(context.Background()); err != nil || g.freeSlots() != 0 {
		t.Errorf("enter after leave: %v, %d free; want the one slot taken", err, g.freeSlots())
	}
	if gateOf(nil) != nil {
		t.Error("a nil pool has a gate")
	}
}

// TestGateLeavesWithItsPool: the gate of a pool that nothing holds any
// more leaves gates once the pool is collected.
func TestGateLeavesWithItsPool(t *testing.T) {
	// The weak key does not keep the pool alive; other tests' pools may
	// come and go meanwhile, so the test looks for this key alone.
	key := func() weak.Pointer[sqlx.DB] {
		db := sqlx.NewDb(sql.OpenDB(unusedConnector{}), "postgres")
		defer db.Close() // its opener goroutine holds the sql.DB, not db
		keepGate(db, 2)
		if gateOf(db) == nil {
			t.Fatal("no gate kept for the pool")
		}
		return weak.Make(db)
	}()
	kept := func() bool { _, ok := gates.Load(key); return ok }
	// Cleanups run on their own goroutine after the collection that frees
	// the pool: collect and yield until the entry is gone, a bounded number
	// of times.
	for i := 0; i < 1000 && kept(); i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if kept() {
		t.Fatal("the gate of a collected pool is still kept")
	}
}

// unusedConnector is a driver.Connector that is never asked to connect.
type unusedConnector struct{}

func (unusedConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("unusedConnector: not for connecting")
}

func (unusedConnector) Driver() driver.Driver { return nil }
