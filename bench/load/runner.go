package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// errStop, wrapped by an operation's error, retires its virtual user for the
// rest of the run (a refresh chain whose state is no longer known, say).
var errStop = errors.New("virtual user stopped")

// runConfig bounds one measured run in time.
type runConfig struct {
	// Duration is how long operations are measured, after Warmup.
	Duration time.Duration
	// Warmup is how long operations run, unmeasured, before.
	Warmup time.Duration
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

// runLoad runs op on every worker in a closed loop (each starts its next
// operation as soon as the previous one ends) until the measured window
// ends or ctx does. An operation under way is never cancelled by the end
// of the run: it finishes within requestTimeout.
func runLoad(ctx context.Context, cfg runConfig, workers []*worker, op opFunc) measured {
	from := time.Now().Add(cfg.Warmup)
	deadline := from.Add(cfg.Duration)
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
			end, stop := loop(ctx, opCtx, w, op, from, deadline)
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
func loop(ctx, opCtx context.Context, w *worker, op opFunc, from, deadline time.Time) (time.Time, bool) {
	var last time.Time
	for ctx.Err() == nil {
		now := time.Now()
		if !now.Before(deadline) {
			break
		}
		w.measuring = !now.Before(from)
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
