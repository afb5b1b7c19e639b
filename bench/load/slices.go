package main

import (
	"context"
	"runtime"
	"time"
)

// The cross-checks compare two loads (this tool's client and wrk, a
// server with the limiter off and on, the server and a baseline) in
// slices that alternate between them, a, b, then b, a, ...: a machine
// whose speed drifts, shared with others, then slows both alike, which
// whole runs one after the other did not ensure.

// slice is what one slice of a load measured: the load itself, the use of
// the cores (the tool's being whichever client made the load) and the
// wall seconds it took.
type slice struct {
	m    measured
	cpu  CPUUse
	wall float64
}

// slicer is a load measured one slice at a time.
type slicer interface {
	slice(ctx context.Context, d time.Duration) (slice, error)
}

// wrkSlicer is wrk reading one path of one server.
type wrkSlicer struct {
	wr   *wrkRunner
	pid  int // the server's, for its CPU
	kind string
}

// slice runs wrk once for d, wrk's own CPU as the tool's.
func (s *wrkSlicer) slice(ctx context.Context, d time.Duration) (slice, error) {
	a := takeCPU(s.pid)
	sum, used, err := s.wr.run(ctx, d)
	b := takeCPU(s.pid)
	if err != nil {
		return slice{}, err
	}
	u, wall := cpuBetween(a, b, runtime.NumCPU()), b.at.Sub(a.at).Seconds()
	if wall > 0 {
		u.Tool = used.Seconds() / wall
	}
	return slice{m: sum.measured(s.kind, s.wr.c), cpu: u, wall: wall}, nil
}

// goSlicer is this tool's virtual users running op, their connections
// kept open between slices.
type goSlicer struct {
	workers []*worker
	op      opFunc
	pid     int
}

// slice runs op on the workers for d, in a closed loop.
func (s *goSlicer) slice(ctx context.Context, d time.Duration) (slice, error) {
	a := takeCPU(s.pid)
	m := runLoad(ctx, runConfig{Duration: d}, s.workers, s.op)
	b := takeCPU(s.pid)
	return slice{m: m, cpu: cpuBetween(a, b, runtime.NumCPU()), wall: b.at.Sub(a.at).Seconds()}, ctx.Err()
}

// tally adds up the slices of one side.
type tally struct {
	rec     *recorder
	elapsed time.Duration
	stopped int
	cpu     cpuSum
}

// add adds one slice.
func (t *tally) add(s slice) {
	if t.rec == nil {
		t.rec = newRecorder()
	}
	t.rec.merge(s.m.rec)
	t.elapsed += s.m.elapsed
	t.stopped += s.m.stopped
	t.cpu.add(s.cpu, s.wall)
}

// result fills res, labelled by the caller, with the slices summed;
// before is how busy the machine was before the first.
func (t *tally) result(res *Result, before float64) *Result {
	if t.rec == nil {
		t.rec = newRecorder()
	}
	fill(res, measured{elapsed: t.elapsed, rec: t.rec, stopped: t.stopped})
	res.CPU = t.cpu.mean(before)
	return res
}

// alternate warms both sides up for warmup, unmeasured, then measures n
// slices of d of each, alternating. It returns each side's sum and how
// busy the machine was before the first slice.
func alternate(ctx context.Context, sides [2]slicer, warmup time.Duration, n int, d time.Duration) ([2]*tally, float64, error) {
	var sums [2]*tally
	for i, s := range sides {
		sums[i] = &tally{}
		if warmup > 0 {
			if _, err := s.slice(ctx, warmup); err != nil {
				return sums, 0, err
			}
		}
	}
	before := machineBusy(time.Second)
	for i := range n {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, k := range order {
			s, err := sides[k].slice(ctx, d)
			if err != nil {
				return sums, before, err
			}
			sums[k].add(s)
		}
	}
	return sums, before, ctx.Err()
}

// cpuSum adds up the use of the cores over several spans of time.
type cpuSum struct {
	use  CPUUse // each span's use times its length in seconds
	wall float64
}

// add adds a span of wall seconds that used u.
func (s *cpuSum) add(u CPUUse, wall float64) {
	s.use.Server += u.Server * wall
	s.use.Tool += u.Tool * wall
	s.use.Busy += u.Busy * wall
	s.use.Steal += u.Steal * wall
	s.use.Database += u.Database * wall
	s.wall += wall
}

// mean is the use over all the spans, or nil without any; before is the
// machine's busy cores before them.
func (s *cpuSum) mean(before float64) *CPUUse {
	if s.wall <= 0 {
		return nil
	}
	return &CPUUse{Server: s.use.Server / s.wall, Tool: s.use.Tool / s.wall, Busy: s.use.Busy / s.wall, Steal: s.use.Steal / s.wall,
		Database: s.use.Database / s.wall, Before: before}
}

// runWrk measures one closed loop of wrk reading path on t with c
// connections (each request with the next user's token when auth is set):
// a warm-up run, unmeasured, then the measured one, the server sampled.
// res is labelled by the caller and filled here.
func runWrk(ctx context.Context, wrk string, t *target, path string, auth bool, cfg runConfig, res *Result) error {
	wr, err := newWrkRunner(ctx, wrk, t, path, auth, res.Concurrency)
	if err != nil {
		return err
	}
	defer wr.close()
	if cfg.Warmup > 0 {
		if _, _, err := wr.run(ctx, cfg.Warmup); err != nil {
			return err
		}
	}
	res.Tool, res.Started = "wrk", time.Now()
	smp := startSampler(ctx, t.metricsURL, t.pid)
	start := time.Now()
	sum, used, err := wr.run(ctx, cfg.Duration)
	wall := time.Since(start).Seconds()
	peak, use := smp.stop()
	if err != nil {
		return err
	}
	use.Tool = used.Seconds() / wall
	res.Peak, res.CPU = &peak, &use
	fill(res, sum.measured(res.Scenario, res.Concurrency))
	return nil
}
