package models

import (
	"context"
	"runtime"
	"sync"
	"weak"

	"github.com/jmoiron/sqlx"
)

// gate lets at most a pool's size of callers use its connections at once,
// and makes the others wait in the order they came. database/sql hands a
// connection that frees up to a waiter picked at random, so with more
// concurrent requests than connections a request can be passed over again
// and again and the tail of the wait grows long: the refresh's p99 at 32
// concurrent requests on 8 connections fell by about a third once they
// waited in arrival order (BENCHMARKS.md, "The refresh beside the rotate
// baseline"). Callers that wait here instead
// never wait in database/sql. The statements of the stores and Transact go
// through the gate of a pool built by Open; anything else uses the pool as
// before.
type gate struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{} // first come, first served
}

// newGate returns a gate of n slots.
func newGate(n int) *gate { return &gate{free: n} }

// enter takes a slot, waiting behind the callers already waiting, or
// returns ctx's error if ctx ends first (taking nothing).
func (g *gate) enter(ctx context.Context) error {
	g.mu.Lock()
	if g.free > 0 && len(g.waiters) == 0 {
		g.free--
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	g.waiters = append(g.waiters, ch)
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	for i, w := range g.waiters {
		if w == ch {
			g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
			g.mu.Unlock()
			return ctx.Err()
		}
	}
	// The slot was handed over as ctx ended: pass it on.
	g.mu.Unlock()
	g.leave()
	return ctx.Err()
}

// leave frees a slot: the first waiter, if any, takes it.
func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiters) > 0 {
		ch := g.waiters[0]
		g.waiters = g.waiters[1:]
		close(ch)
		return
	}
	g.free++
}

// waiting returns how many callers wait.
func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters)
}

// gates holds the gate of each pool built by Open, without keeping a
// closed pool alive.
var gates sync.Map // weak.Pointer[sqlx.DB] -> *gate

// keepGate gives db a gate of n slots, which leaves gates when db is
// collected: a process that opens and drops pools (tests, tools) does not
// keep one entry for each.
func keepGate(db *sqlx.DB, n int) {
	key := weak.Make(db)
	gates.Store(key, newGate(n))
	runtime.AddCleanup(db, func(k weak.Pointer[sqlx.DB]) { gates.Delete(k) }, key)
}

// gateOf returns the gate of db, or nil when db is not a pool built by
// Open (a transaction, say, which holds its connection already).
func gateOf(db DB) *gate {
	p, ok := db.(*sqlx.DB)
	if !ok || p == nil {
		return nil
	}
	if g, ok := gates.Load(weak.Make(p)); ok {
		return g.(*gate)
	}
	return nil
}

// through runs fn in a slot of db's gate, if db has one.
func through(ctx context.Context, db DB, fn func() error) error {
	g := gateOf(db)
	if g == nil {
		return fn()
	}
	if err := g.enter(ctx); err != nil {
		return err
	}
	defer g.leave()
	return fn()
}
