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

func TestScheduleDueTimes(t *testing.T) {
	start := time.Unix(1000, 0)
	s := &schedule{start: start, rate: 4000}
	for i := range 9 {
		if got, want := s.take().Sub(start), time.Duration(i)*250*time.Microsecond; got != want {
			t.Errorf("operation %d due at +%v, want +%v", i, got, want)
		}
	}
}

// TestOpenLoopKeepsTheSchedule: a fast operation at 500/s for 400 ms runs
// about 200 times, each on time.
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	start := time.Now()
	m := runLoad(context.Background(), runConfig{Duration: 400 * time.Millisecond, MaxOps: 1 << 40, Rate: 500}, workers(4),
		func(context.Context, *worker) error { return nil })
	if n := len(m.rec.ops); n != 200 {
		t.Errorf("ran %d operations, want 200 (500/s for 400 ms)", n)
	}
	if took := time.Since(start); took < 390*time.Millisecond || took > 3*time.Second {
		t.Errorf("took %v, want about 400 ms: the schedule sets the pace", took)
	}
	if lag := summarize(m.rec.lag); lag.Count != 200 || lag.P50 > 20 {
		t.Errorf("send lag %+v, want 200 operations sent on time", lag)
	}
}

// TestOpenLoopChargesTheQueue: two connections each serving 50/s cannot
// keep a 200/s schedule. Every scheduled operation is still sent, late,
// and timed from when it was due, so latency grows far past the 20 ms an
// operation takes, as it would for users arriving at that rate; a closed
// loop would report 20 ms.
func TestOpenLoopChargesTheQueue(t *testing.T) {
	m := runLoad(context.Background(), runConfig{Duration: 300 * time.Millisecond, MaxOps: 1 << 40, Rate: 200}, workers(2),
		func(context.Context, *worker) error {
			time.Sleep(20 * time.Millisecond)
			return nil
		})
	lat, lag := summarize(m.rec.ops), summarize(m.rec.lag)
	if lat.Count != 60 {
		t.Errorf("ran %d operations, want all 60 scheduled (200/s for 300 ms)", lat.Count)
	}
	// The last due at 295 ms starts after 30 rounds of 20 ms: about 600 ms.
	if lat.Max < 250 || lag.Max < 230 || lat.Max < lag.Max {
		t.Errorf("latency max %.0f ms, send lag max %.0f ms; want both beyond 250 ms / 230 ms", lat.Max, lag.Max)
	}
	if m.elapsed < 500*time.Millisecond {
		t.Errorf("the 60 operations ended after %v, want at least 600 ms of 20 ms operations on 2 connections", m.elapsed)
	}
}

func TestOpenLoopWarmupNotMeasured(t *testing.T) {
	m := runLoad(context.Background(), runConfig{Duration: 200 * time.Millisecond, Warmup: 100 * time.Millisecond, MaxOps: 1 << 40, Rate: 100},
		workers(2), func(context.Context, *worker) error { return nil })
	if n := len(m.rec.ops); n != 20 {
		t.Errorf("measured %d operations, want the 20 due in the 200 ms after the warm-up", n)
	}
}

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  bool
	}{
		{"3000/s", 3000, false}, {"3000", 3000, false}, {"180000/m", 3000, false}, {"0.5/s", 0.5, false},
		{"0/s", 0, true}, {"-5", 0, true}, {"fast", 0, true}, {"10/h", 0, true}, {"", 0, true}, {"NaN", 0, true}, {"Inf", 0, true},
	} {
		got, err := parseRate(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseRate(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseRunRate(t *testing.T) {
	a, err := parseRun([]string{"-scenario", "read", "-rate", "3000/s", "-d", "10s"})
	if err != nil || a.cfg.Rate != 3000 || a.cfg.Duration != 10*time.Second {
		t.Errorf("got %+v, %v; want an open loop at 3000/s for 10s", a, err)
	}
	if a, err := parseRun(nil); err != nil || a.cfg.Rate != 0 {
		t.Errorf("without -rate: %+v, %v; want a closed loop", a, err)
	}
	for _, bad := range [][]string{{"-scenario", "sockets", "-rate", "10/s"}, {"-rate", "fast"}, {"-url", "http://10.1.2.3:80"}, {"-c", "0"}} {
		if _, err := parseRun(bad); err == nil {
			t.Errorf("parseRun(%q): nil error", bad)
		}
	}
}
