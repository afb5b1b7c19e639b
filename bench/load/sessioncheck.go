package main

import (
	"context"
	"fmt"
	"time"
)

// compareSession measures the read at concurrency c on the bench's server
// and the session baseline (JWT verify plus one statement reading the owner
// and its session) in alternating slices, cfg.sessionSlices of each, over
// connections kept open to both: the read's target is a share of that
// baseline (issue 12), and a machine whose speed drifts between two whole
// runs would decide it rather than the code.
func (b *benchRun) compareSession(ctx context.Context, c int) {
	sc, err := baselineScenario("session")
	if err != nil {
		b.record(&Result{Kind: "run", Scenario: "session", Target: "baseline", Series: "session", Concurrency: c,
			Started: time.Now(), Error: err.Error()})
		return
	}
	bt := *b.t
	bt.base, bt.pid, bt.metricsURL = b.blURL, b.blPID, ""
	sides := []*side{{series: "session", t: b.t}, {series: "session", target: "baseline", t: &bt, sc: sc}}
	for _, s := range sides {
		defer s.close()
		if err := s.prepare(ctx, c, b.cfg.run.Warmup); err != nil {
			name, target := "read", "server"
			if s.target != "" {
				name, target = "session", s.target
			}
			b.record(&Result{Kind: "run", Scenario: name, Target: target, Series: "session", Concurrency: c,
				Started: time.Now(), Error: err.Error()})
			return
		}
	}
	n := b.cfg.sessionSlices
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
	if q, server, base, ok := sessionRatio(b.runs); ok {
		fmt.Printf("read at %d in alternating slices: server %s req/s, session baseline %s req/s: %.2f (want at least 0.90)\n",
			c, fmtRate(server), fmtRate(base), q)
	}
}

// sessionRatio is the server's read rate over the session baseline's, in
// the alternating "session" series.
func sessionRatio(runs []*Result) (ratio, server, base float64, ok bool) {
	for _, r := range runs {
		if r.Series != "session" || r.Error != "" {
			continue
		}
		if r.Target == "baseline" {
			base = r.ReqPerSec
		} else {
			server = r.ReqPerSec
		}
	}
	if server <= 0 || base <= 0 {
		return 0, 0, 0, false
	}
	return server / base, server, base, true
}
