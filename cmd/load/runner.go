package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errStop, wrapped by an operation's error, retires its virtual user for the
// rest of the run (a refresh chain whose state is no longer known, say).
var errStop = errors.New("virtual user stopped")

// runConfig bounds one measured run in time and in operations.
type runConfig struct {
	// Duration is how long operations are measured, after Warmup.
	Duration time.Duration
	// Warmup is how long operations run, unmeasured, before.
	Warmup time.Duration
	// MaxOps bounds the measured operations; the run ends at whichever of
	// Duration and MaxOps comes first.
	MaxOps int64
}

// opFunc is one iteration of a virtual user. Its requests go through
// w.call, which measures them.
type opFunc func(ctx context.Context, w *worker) error

// measured is what a run measured.
type measured struct {
	elapsed time.Duration // from the end of the warm-up to the last measured operation's end
	rec     *recorder
	stopped int // virtual users retired by errStop
}

// runLoad runs op in a closed loop on every worker: each starts its next
// operation as soon as the previous one ends, until the measured window or
// the operation budget is used up or ctx ends. An operation under way is
// never cancelled by the end of the run: it finishes within requestTimeout.
func runLoad(ctx context.Context, cfg runConfig, workers []*worker, op opFunc) measured {
	start := time.Now()
	from := start.Add(cfg.Warmup)
	deadline := from.Add(cfg.Duration)
	var budget atomic.Int64
	budget.Store(cfg.MaxOps)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		last    = from
		stopped int
	)
	opCtx := context.WithoutCancel(ctx)
	for _, w := range workers {
		w.rec = newRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			end, stop := loop(ctx, opCtx, w, op, from, deadline, &budget)
			mu.Lock()
			defer mu.Unlock()
			if end.After(last) {
				last = end
			}
			if stop {
				stopped++
			}
		}()
	}
	wg.Wait()
	total := newRecorder()
	for _, w := range workers {
		total.merge(w.rec)
	}
	return measured{elapsed: last.Sub(from), rec: total, stopped: stopped}
}

// loop is one worker's part of runLoad. It returns when the last measured
// operation of the worker ended, and whether the worker was retired.
func loop(ctx, opCtx context.Context, w *worker, op opFunc, from, deadline time.Time, budget *atomic.Int64) (time.Time, bool) {
	var last time.Time
	for ctx.Err() == nil {
		now := time.Now()
		if !now.Before(deadline) {
			break
		}
		w.measuring = !now.Before(from)
		if w.measuring && budget.Add(-1) < 0 {
			break
		}
		err := op(opCtx, w)
		end := time.Now()
		if w.measuring {
			w.rec.ops = append(w.rec.ops, end.Sub(now))
			if err != nil {
				w.rec.failed++
			}
			last = end
		}
		if errors.Is(err, errStop) {
			return last, true
		}
	}
	return last, false
}
