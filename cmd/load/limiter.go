package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"
)

// compareLimiter measures the read at concurrency c on the bench's server
// (global limiter on, production settings) and on a second server started
// for this with the limiter off (RATE_LIMIT_MAX=0) and nothing else
// changed, on the same database and Redis namespace. The two are read in
// alternating slices, cfg.limiterSlices of each (off, on, then on, off,
// ...), each -d / slices long, over connections kept open to both: a
// machine whose speed drifts, shared with others, slows both alike, which
// whole runs one after the other did not ensure.
func (b *benchRun) compareLimiter(ctx context.Context, c int) {
	twin, url, err := startServer(ctx, b.cfg.server, withLimiterOff(b.env), filepath.Join(b.cfg.logs, "server-limiter-off.log"))
	if err != nil {
		b.record(&Result{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: "off", Concurrency: c,
			Started: time.Now(), Error: "start the server with the limiter off: " + err.Error()})
		return
	}
	defer func() { _ = twin.stop(40 * time.Second) }()
	off := *b.t
	off.base, off.metricsURL, off.pid = url, url+"/metrics", twin.pid()
	sides := []*side{{name: "off", t: &off}, {name: "on", t: b.t}}
	for _, s := range sides {
		defer s.close()
		if err := s.prepare(ctx, c, b.cfg.run.Warmup); err != nil {
			b.record(&Result{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: s.name, Concurrency: c,
				Started: time.Now(), Error: err.Error()})
			return
		}
	}
	n := b.cfg.limiterSlices
	slice := runConfig{Duration: b.cfg.run.Duration / time.Duration(n), MaxOps: max(1, b.cfg.run.MaxOps/int64(n))}
	before := machineBusy(time.Second)
	for i := range n {
		first, second := sides[0], sides[1]
		if i%2 == 1 {
			first, second = second, first
		}
		first.measure(ctx, slice)
		second.measure(ctx, slice)
	}
	for _, s := range sides {
		r := s.result(c, before)
		if err := ctx.Err(); err != nil {
			r.Error = "cut short: " + err.Error()
		}
		b.record(r)
	}
	if ratio, on, off, ok := limiterRatio(b.runs); ok {
		fmt.Printf("read at %d: limiter on %s req/s, off %s req/s: on/off %.2f (want at least 0.95)\n", c, fmtRate(on), fmtRate(off), ratio)
	}
}

// side is one server of the limiter comparison, its virtual users and
// what the slices measured of it.
type side struct {
	name    string // "off" or "on"
	t       *target
	sc      *scenario
	workers []*worker
	started time.Time
	rec     *recorder
	elapsed time.Duration
	stopped int
	// cpu sums each slice's use of the cores times its wall seconds.
	cpu  CPUUse
	wall float64
}

// prepare gives the side c virtual users, connected, and warms them up
// for warmup, unmeasured.
func (s *side) prepare(ctx context.Context, c int, warmup time.Duration) error {
	sc, err := lookupScenario("read", s.t)
	if err != nil {
		return err
	}
	s.sc, s.rec, s.started = sc, newRecorder(), time.Now()
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
	u, w := cpuBetween(a, b, runtime.NumCPU()), b.at.Sub(a.at).Seconds()
	s.cpu.Server += u.Server * w
	s.cpu.Tool += u.Tool * w
	s.cpu.Busy += u.Busy * w
	s.cpu.Steal += u.Steal * w
	s.wall += w
	s.rec.merge(m.rec)
	s.elapsed += m.elapsed
	s.stopped += m.stopped
}

// result is the side's slices as one run; before is how busy the machine
// was before the first slice.
func (s *side) result(c int, before float64) *Result {
	r := &Result{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: s.name, Concurrency: c, Started: s.started}
	fill(r, measured{elapsed: s.elapsed, rec: s.rec, stopped: s.stopped})
	if s.wall > 0 {
		r.CPU = &CPUUse{Server: s.cpu.Server / s.wall, Tool: s.cpu.Tool / s.wall, Busy: s.cpu.Busy / s.wall,
			Steal: s.cpu.Steal / s.wall, Before: before}
	}
	return r
}

// close closes the side's connections.
func (s *side) close() {
	for _, w := range s.workers {
		w.close()
	}
}
