package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
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
	// Rate, when positive, makes the run an open loop: operations start on
	// a fixed schedule, Rate a second, whatever became of the ones before,
	// and each is timed from its scheduled start (see openLoop).
	Rate float64
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

// runLoad runs op on every worker, in a closed loop (each starts its next
// operation as soon as the previous one ends) or, with cfg.Rate, an open
// one, until the measured window or the operation budget is used up or ctx
// ends. An operation under way is never cancelled by the end of the run: it
// finishes within requestTimeout.
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
	sch := &schedule{start: start, rate: cfg.Rate}
	for _, w := range workers {
		w.rec = newRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var end time.Time
			var stop bool
			if cfg.Rate > 0 {
				end, stop = openLoop(ctx, opCtx, w, op, sch, from, deadline, &budget)
			} else {
				end, stop = loop(ctx, opCtx, w, op, from, deadline, &budget)
			}
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

// schedule hands out the start times of an open-loop run: operation i is
// due at start + i/rate.
type schedule struct {
	start time.Time
	rate  float64
	next  atomic.Int64
}

// take returns when the next operation is due.
func (s *schedule) take() time.Time {
	i := s.next.Add(1) - 1
	return s.start.Add(time.Duration(float64(i) * float64(time.Second) / s.rate))
}

// openLoop is one worker's part of an open-loop run: it takes the next
// due time from sch, waits for it unless it has passed, and runs op. An
// operation is timed from when it was due, not from when it was sent, so
// that a server that stalls is charged for the operations that queued
// behind the stall (no coordinated omission); how late each one was sent
// is kept apart (rec.lag): the workers are the connections available, and
// when all are busy the schedule waits for one. It returns when the last
// measured operation of the worker ended, and whether the worker was
// retired.
func openLoop(ctx, opCtx context.Context, w *worker, op opFunc, sch *schedule, from, deadline time.Time, budget *atomic.Int64) (time.Time, bool) {
	var last time.Time
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for ctx.Err() == nil {
		due := sch.take()
		if !due.Before(deadline) {
			break
		}
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return last, false
			}
		}
		w.measuring = !due.Before(from)
		if w.measuring && budget.Add(-1) < 0 {
			break
		}
		sent := time.Now()
		err := op(opCtx, w)
		end := time.Now()
		if w.measuring {
			w.rec.ops = append(w.rec.ops, end.Sub(due))
			w.rec.lag = append(w.rec.lag, sent.Sub(due))
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

// parseRate reads an open-loop rate: "3000/s", "3000" (a second) or
// "180000/m" (a minute), in operations per second.
func parseRate(s string) (float64, error) {
	num, unit, _ := strings.Cut(s, "/")
	per := 1.0
	switch unit {
	case "", "s":
	case "m":
		per = 60
	default:
		return 0, fmt.Errorf("rate %q: want N/s or N/m", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("rate %q: want a positive number of operations per second (N/s) or minute (N/m)", s)
	}
	return n / per, nil
}
