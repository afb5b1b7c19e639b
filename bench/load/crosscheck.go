package main

import (
	"context"
	"fmt"
	"time"
)

// crossCheck follows the plan's read at cfg.checkC with the checks of its
// figures: the same read measured by this tool and wrk in alternating
// slices, the read in an open loop at
// cfg.openShare of read's rate, and the read with the global limiter off
// beside on, in alternating slices.
func (b *benchRun) crossCheck(ctx context.Context, read *Result) {
	c := read.Concurrency
	if b.cfg.wrk != "" && ctx.Err() == nil {
		tool, w, err := compareWithWrk(ctx, b.cfg.wrk, b.t, c, b.cfg.run, b.cfg.wrkSlices)
		if err != nil {
			b.record(&Result{Kind: "run", Scenario: "read", Target: "server", Series: "wrk", Tool: "wrk", Concurrency: c,
				Started: time.Now(), Error: err.Error()})
		} else {
			b.record(tool)
			b.record(w)
			q, _ := toolOverWrk(tool, w)
			p, _ := toolOverWrk(read, w)
			fmt.Printf("read at %d in alternating slices: this tool %s req/s, wrk %s req/s: ratio %.2f (want 0.90 to 1.10); "+
				"the plan's read / wrk: %.2f\n", c, fmtRate(tool.ReqPerSec), fmtRate(w.ReqPerSec), q, p)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if b.cfg.openShare > 0 && read.Error == "" && read.ReqPerSec > 0 && ctx.Err() == nil {
		run := b.cfg.run
		run.Rate = b.cfg.openShare * read.ReqPerSec
		b.record(b.readRun(ctx, b.t, c, run, "open", ""))
		time.Sleep(500 * time.Millisecond)
	}
	if b.cfg.limiterSlices > 0 && ctx.Err() == nil {
		b.compareLimiter(ctx, c)
	}
	if b.cfg.sessionSlices > 0 && ctx.Err() == nil {
		b.compareSession(ctx, c)
	}
}

// readRun runs the read scenario on t as one run of series.
func (b *benchRun) readRun(ctx context.Context, t *target, c int, run runConfig, series, limiter string) *Result {
	sc, err := lookupScenario("read", t)
	var r *Result
	if err == nil {
		r, err = runHTTP(ctx, t, t.base, sc, c, run, true)
	}
	r = orFailed(r, err, step{"read", c})
	r.Series, r.Limiter = series, limiter
	return r
}

// toolOverWrk is this tool's read rate over wrk's, when both were measured.
func toolOverWrk(tool, wrk *Result) (float64, bool) {
	if tool == nil || wrk == nil || tool.Error != "" || wrk.Error != "" || wrk.ReqPerSec <= 0 {
		return 0, false
	}
	return tool.ReqPerSec / wrk.ReqPerSec, true
}

// limiterRatio compares the limiter series: the mean read rate of the runs
// with the limiter on over the mean of those with it off. It needs at
// least one complete run of each.
func limiterRatio(runs []*Result) (ratio, on, off float64, ok bool) {
	var nOn, nOff int
	for _, r := range runs {
		if r.Series != "limiter" || r.Error != "" {
			continue
		}
		switch r.Limiter {
		case "on":
			on += r.ReqPerSec
			nOn++
		case "off":
			off += r.ReqPerSec
			nOff++
		}
	}
	if nOn == 0 || nOff == 0 || off <= 0 {
		return 0, 0, 0, false
	}
	on, off = on/float64(nOn), off/float64(nOff)
	return on / off, on, off, true
}
