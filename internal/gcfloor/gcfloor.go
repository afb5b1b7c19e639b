// Package gcfloor keeps the garbage collector's heap goal at or above a
// floor. With Go's default (GOGC=100) a collection starts when the heap
// has grown by as much as survived the last one, so a server whose live
// heap is a few MiB collects every few MiB it allocates and spends a large
// part of its CPU marking the same live objects again. With a floor, a
// small heap grows to the floor before it is collected; a live heap of
// more than half the floor is collected as GOGC=100 would.
//
// After each collection the package sets GOGC (debug.SetGCPercent) so that
// the next one starts at the floor, or at GOGC=100's goal when that is
// higher. A memory limit (GOMEMLIMIT) still bounds the heap.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// heapMinimum is Go's least heap goal at GOGC=100 (4 MiB). The runtime
// scales it with GOGC, so a GOGC of p never lets the heap goal fall under
// heapMinimum × p / 100: Percent keeps that at or under the floor.
const heapMinimum = 4 << 20

// Floor keeps the heap goal at or above its floor until Stop.
type Floor struct {
	floor   uint64
	stopped atomic.Bool
	mu      sync.Mutex // one adjustment at a time
	samples []metrics.Sample
	// adjusted counts the adjustments, for the tests.
	adjusted atomic.Int64
}

// sentinel is collected by every collection: its finalizer adjusts GOGC
// and arms a new one. It holds a pointer, so it is never tiny-allocated
// beside an object that would outlive it.
type sentinel struct{ f *Floor }

// Start keeps the heap goal at or above floor bytes from the next
// collection on, and sets GOGC for it at once.
func Start(floor uint64) *Floor {
	f := &Floor{floor: floor, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/globals:bytes"},
		{Name: "/gc/scan/stack:bytes"},
	}}
	f.adjust()
	f.arm()
	return f
}

// Stop ends the adjustments and restores GOGC=100.
func (f *Floor) Stop() {
	f.stopped.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	debug.SetGCPercent(100)
}

// arm leaves a sentinel for the next collection.
func (f *Floor) arm() {
	runtime.SetFinalizer(&sentinel{f: f}, func(s *sentinel) {
		if s.f.stopped.Load() {
			return
		}
		s.f.adjust()
		s.f.arm()
	})
}

// adjust sets GOGC for the live heap the last collection left.
func (f *Floor) adjust() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped.Load() {
		return
	}
	metrics.Read(f.samples)
	var v [3]uint64
	for i, s := range f.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	debug.SetGCPercent(Percent(v[0], v[1]+v[2], f.floor))
	f.adjusted.Add(1)
}

// Percent is the GOGC that starts the next collection when the heap
// reaches floor bytes, given the live heap and the other memory the
// collector scans (globals and goroutine stacks), or 100 when GOGC=100's
// goal is already at or above the floor. Go's heap goal is
// live + (live + scanned) × GOGC / 100.
// The runtime's own minimum, scaled by the GOGC returned, bounds it: for
// an almost empty heap Percent returns the GOGC whose scaled minimum is
// the floor.
func Percent(live, scanned, floor uint64) int {
	if live >= floor || 2*live+scanned >= floor {
		return 100
	}
	p := (floor - live) * 100 / (live + scanned + 1)
	return int(max(100, min(p, floor*100/heapMinimum)))
}
