package main

import (
	"context"
	"fmt"
	"path/filepath"
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
	sides := []*side{{series: "limiter", limiter: "off", t: &off}, {series: "limiter", limiter: "on", t: b.t}}
	for _, s := range sides {
		defer s.close()
		if err := s.prepare(ctx, c, b.cfg.run.Warmup); err != nil {
			b.record(&Result{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: s.limiter, Concurrency: c,
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
