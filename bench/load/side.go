package main

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// side is this tool's read on one server, measured in slices that
// alternate with other load (the server with the limiter off, or wrk),
// over connections kept open between the slices.
type side struct {
	series  string // the Result's Series
	limiter string // the Result's Limiter, if any
	target  string // the Result's Target: "server" when empty
	t       *target
	sc      *scenario // the read when nil
	workers []*worker
	started time.Time
	rec     *recorder
	elapsed time.Duration
	stopped int
	cpu     cpuSum
}

// prepare gives the side c virtual users, connected, and warms them up
// for warmup, unmeasured.
func (s *side) prepare(ctx context.Context, c int, warmup time.Duration) error {
	if s.sc == nil {
		sc, err := lookupScenario("read", s.t)
		if err != nil {
			return err
		}
		s.sc = sc
	}
	sc := s.sc
	s.rec, s.started = newRecorder(), time.Now()
	s.workers = make([]*worker, c)
	for i := range s.workers {
		s.workers[i] = newWorker(i, s.t.base)
	}
	if err := sc.prepare(ctx, s.t, s.workers); err != nil {
		return fmt.Errorf("read: prepare: %w", err)
	}
	runLoad(ctx, runConfig{Duration: max(warmup, time.Millisecond), MaxOps: 1 << 62}, s.workers, sc.op)
	return nil
}

// measure runs one slice and adds what it measured.
func (s *side) measure(ctx context.Context, cfg runConfig) {
	if ctx.Err() != nil {
		return
	}
	a := takeCPU(s.t.pid)
	m := runLoad(ctx, cfg, s.workers, s.sc.op)
	b := takeCPU(s.t.pid)
	s.cpu.add(cpuBetween(a, b, runtime.NumCPU()), b.at.Sub(a.at).Seconds())
	s.rec.merge(m.rec)
	s.elapsed += m.elapsed
	s.stopped += m.stopped
}

// result is the side's slices as one run; before is how busy the machine
// was before the first slice.
func (s *side) result(c int, before float64) *Result {
	r := &Result{Kind: "run", Scenario: s.sc.name, Target: "server", Series: s.series, Limiter: s.limiter, Concurrency: c, Started: s.started}
	if s.target != "" {
		r.Target = s.target
	}
	fill(r, measured{elapsed: s.elapsed, rec: s.rec, stopped: s.stopped})
	r.CPU = s.cpu.mean(before)
	return r
}

// close closes the side's connections.
func (s *side) close() {
	for _, w := range s.workers {
		w.close()
	}
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
	s.wall += wall
}

// mean is the use over all the spans, or nil without any; before is the
// machine's busy cores before them.
func (s *cpuSum) mean(before float64) *CPUUse {
	if s.wall <= 0 {
		return nil
	}
	return &CPUUse{Server: s.use.Server / s.wall, Tool: s.use.Tool / s.wall, Busy: s.use.Busy / s.wall, Steal: s.use.Steal / s.wall, Before: before}
}
