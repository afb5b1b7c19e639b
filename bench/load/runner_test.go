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
	client := newClient("http://127.0.0.1:1", n)
	for i := range ws {
		ws[i] = newWorker(i, "http://127.0.0.1:1", client)
	}
	return ws
}

func TestRunLoadStopsAtDuration(t *testing.T) {
	start := time.Now()
	m := runLoad(context.Background(), runConfig{Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond}, workers(4),
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
	m := runLoad(context.Background(), runConfig{Duration: 100 * time.Millisecond}, workers(4), func(_ context.Context, w *worker) error {
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
	runLoad(ctx, runConfig{Duration: time.Minute}, workers(1), func(opCtx context.Context, _ *worker) error {
		cancel()
		time.Sleep(10 * time.Millisecond)
		cancelled.Store(opCtx.Err() != nil)
		return nil
	})
	if cancelled.Load() {
		t.Error("the run's end cancelled an operation under way")
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
	if err != nil || a.rate != 3000 || a.cfg.Duration != 10*time.Second {
		t.Errorf("got %+v, %v; want an open loop at 3000/s for 10s", a, err)
	}
	if a, err := parseRun(nil); err != nil || a.rate != 0 || a.client != "wrk" {
		t.Errorf("without -rate: %+v, %v; want a closed loop by wrk", a, err)
	}
	for _, bad := range [][]string{{"-scenario", "sockets", "-rate", "10/s"}, {"-scenario", "refresh", "-rate", "10/s"}, {"-rate", "fast"},
		{"-url", "http://10.1.2.3:80"}, {"-c", "0"}, {"-client", "ab"}} {
		if _, err := parseRun(bad); err == nil {
			t.Errorf("parseRun(%q): nil error", bad)
		}
	}
}
