package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func workers(n int) []*worker {
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = newWorker(i, "http://127.0.0.1:0")
	}
	return ws
}

func TestRunLoadStopsAtMaxOps(t *testing.T) {
	var calls atomic.Int64
	m := runLoad(context.Background(), runConfig{Duration: time.Minute, MaxOps: 500}, workers(8), func(context.Context, *worker) error {
		calls.Add(1)
		return nil
	})
	if got := len(m.rec.ops); got != 500 {
		t.Errorf("measured %d operations, want 500", got)
	}
	if m.elapsed > 10*time.Second {
		t.Errorf("took %v, want the count bound to end the run", m.elapsed)
	}
}

func TestRunLoadStopsAtDuration(t *testing.T) {
	start := time.Now()
	m := runLoad(context.Background(), runConfig{Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, MaxOps: 1 << 40}, workers(4),
		func(context.Context, *worker) error {
			time.Sleep(time.Millisecond)
			return nil
		})
	if took := time.Since(start); took < 250*time.Millisecond || took > 2*time.Second {
		t.Errorf("took %v, want about 250ms", took)
	}
	if len(m.rec.ops) == 0 || m.elapsed < 200*time.Millisecond {
		t.Errorf("measured %d ops in %v", len(m.rec.ops), m.elapsed)
	}
}

func TestRunLoadRetiresAndCountsFailures(t *testing.T) {
	m := runLoad(context.Background(), runConfig{Duration: 100 * time.Millisecond, MaxOps: 1 << 40}, workers(4), func(_ context.Context, w *worker) error {
		if w.id == 0 {
			return fmt.Errorf("%w: chain broken", errStop)
		}
		time.Sleep(time.Millisecond)
		return fmt.Errorf("plain failure")
	})
	if m.stopped != 1 {
		t.Errorf("stopped %d workers, want 1", m.stopped)
	}
	if n := int64(len(m.rec.ops)); n < 4 || m.rec.failed != n {
		t.Errorf("failed %d of %d ops, want all of them", m.rec.failed, n)
	}
}

func TestRunLoadDoesNotCancelOperations(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Bool
	runLoad(ctx, runConfig{Duration: time.Minute, MaxOps: 1}, workers(1), func(opCtx context.Context, _ *worker) error {
		cancel()
		time.Sleep(10 * time.Millisecond)
		cancelled.Store(opCtx.Err() != nil)
		return nil
	})
	if cancelled.Load() {
		t.Error("the run's end cancelled an operation under way")
	}
}
