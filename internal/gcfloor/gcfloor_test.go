package gcfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

const mib = 1 << 20

// Percent puts the next collection at the floor, never under GOGC=100's
// goal, and never at a GOGC whose scaled heap minimum exceeds the floor.
func TestPercent(t *testing.T) {
	const floor = 64 * mib
	for _, tc := range []struct {
		name          string
		live, scanned uint64
	}{
		{"empty heap", 0, 0},
		{"tiny heap", 64 << 10, 256 << 10},
		{"small heap", 5 * mib, 1 * mib},
		{"a third of the floor", 20 * mib, 2 * mib},
		{"half the floor", 32 * mib, 0},
		{"at the floor", floor, mib},
		{"over the floor", 3 * floor, mib},
	} {
		p := Percent(tc.live, tc.scanned, floor)
		goal := tc.live + (tc.live+tc.scanned)*uint64(p)/100
		scaledMin := uint64(heapMinimum) * uint64(p) / 100
		switch {
		case p < 100:
			t.Errorf("%s: GOGC %d, under 100", tc.name, p)
		case scaledMin > floor:
			t.Errorf("%s: GOGC %d scales the runtime's minimum to %d MiB, over the floor", tc.name, p, scaledMin/mib)
		case 2*tc.live+tc.scanned >= floor && p != 100:
			t.Errorf("%s: GOGC %d, want 100 for a heap whose own goal reaches the floor", tc.name, p)
		case 2*tc.live+tc.scanned < floor && max(goal, scaledMin) < floor-mib:
			t.Errorf("%s: GOGC %d puts the goal at %d MiB, under the floor", tc.name, p, max(goal, scaledMin)/mib)
		case 2*tc.live+tc.scanned < floor && goal > floor+mib:
			t.Errorf("%s: GOGC %d puts the goal at %d MiB, over the floor", tc.name, p, goal/mib)
		}
	}
}

// readMetric reads one runtime metric.
func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitAdjusted waits until f has made more than n adjustments (the
// finalizer runs on its own goroutine after a collection).
func waitAdjusted(t *testing.T, f *Floor, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.adjusted.Load() <= n {
		if time.Now().After(deadline) {
			t.Fatalf("no adjustment after a collection: %d", f.adjusted.Load())
		}
		runtime.Gosched()
	}
}

// Under the real runtime: the heap goal is the floor from Start on and
// after each collection while the live heap is small, GOGC=100 once the
// live heap is over half the floor, and Go's own after Stop.
func TestFloorInTheRuntime(t *testing.T) {
	const floor = 48 * mib
	f := Start(floor)
	if goal := readMetric("/gc/heap/goal:bytes"); goal < floor-mib {
		t.Errorf("after Start: heap goal %d MiB, want the floor", goal/mib)
	}
	n := f.adjusted.Load()
	runtime.GC()
	waitAdjusted(t, f, n)
	if goal := readMetric("/gc/heap/goal:bytes"); goal < floor-mib || goal > floor+4*mib {
		t.Errorf("after a collection of a small heap: heap goal %d MiB, want about the floor", goal/mib)
	}

	live := make([]*[1024]byte, 40*1024) // 40 MiB, live until the end
	for i := range live {
		live[i] = new([1024]byte)
	}
	n = f.adjusted.Load()
	runtime.GC()
	waitAdjusted(t, f, n)
	if gogc := readMetric("/gc/gogc:percent"); gogc != 100 {
		t.Errorf("with 40 MiB live: GOGC %d, want 100", gogc)
	}
	runtime.KeepAlive(live)
	live = nil

	f.Stop()
	runtime.GC()
	if gogc := readMetric("/gc/gogc:percent"); gogc != 100 {
		t.Errorf("after Stop: GOGC %d, want 100", gogc)
	}
	if goal := readMetric("/gc/heap/goal:bytes"); goal >= floor/2 {
		t.Errorf("after Stop: heap goal %d MiB, want Go's own for a small heap", goal/mib)
	}
}
