package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// crossCheck follows the plan's read at cfg.checkC with the checks of its
// figures: the read by this tool's own client and by wrk in alternating
// slices, the read in an open loop at cfg.openShare of the plan's rate,
// the read with the global limiter off beside on, and the read beside the
// session baseline, each pair in alternating slices.
func (b *benchRun) crossCheck(ctx context.Context, read *Result) {
	c := read.Concurrency
	if b.cfg.wrkSlices > 0 && ctx.Err() == nil {
		b.compareWithWrk(ctx, c)
		time.Sleep(500 * time.Millisecond)
	}
	if b.cfg.openShare > 0 && read.Error == "" && read.ReqPerSec > 0 && ctx.Err() == nil {
		r, err := openLoop(ctx, b.t, c, b.cfg.openShare*read.ReqPerSec, b.cfg.run)
		r = orFailed(r, err, step{"read", c})
		r.Series = "open"
		b.record(r)
		time.Sleep(500 * time.Millisecond)
	}
	if b.cfg.limiterSlices > 0 && ctx.Err() == nil {
		b.compareLimiter(ctx, c)
	}
	if b.cfg.sessionSlices > 0 && ctx.Err() == nil {
		b.compareSession(ctx, c)
	}
	if b.cfg.algSlices > 0 && ctx.Err() == nil {
		b.compareAlg(ctx, c)
	}
	if b.cfg.mcpSlices > 0 && ctx.Err() == nil {
		b.compareMCP(ctx, c)
	}
}

// side is one load of a comparison and the labels of its result.
type side struct {
	load  slicer
	label Result
	// checks, when set, verifies the side's state after the slices; its
	// checks are recorded with the side's result.
	checks func(ctx context.Context) []Check
}

// compare measures two sides in n alternating slices of the run's length
// divided by n (whole seconds: wrk's unit) after a warm-up, and records
// each side's sum. A side that could not be built is recorded as failed.
func (b *benchRun) compare(ctx context.Context, sides [2]side, n int) []*Result {
	d := wrkSliceLength(b.cfg.run.Duration, n)
	b.analyze(ctx)
	sums, before, err := alternate(ctx, [2]slicer{sides[0].load, sides[1].load}, b.cfg.run.Warmup, n, d)
	var out []*Result
	for i, s := range sides {
		r := s.label
		r.Kind, r.Started = "run", time.Now()
		sums[i].result(&r, before)
		if err != nil {
			r.Error = "cut short: " + err.Error()
		}
		if s.checks != nil {
			// The checks run even when the slices were cut short: a chain
			// must survive an interrupted run too.
			vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			r.Checks = s.checks(vctx)
			cancel()
		}
		b.record(&r)
		out = append(out, &r)
	}
	return out
}

// failSides records both sides of a comparison that could not start.
func (b *benchRun) failSides(sides [2]Result, err error) {
	for _, r := range sides {
		r.Kind, r.Started, r.Error = "run", time.Now(), err.Error()
		b.record(&r)
	}
}

// wrkSliceLength is d / n in whole seconds, wrk's unit, and at least one.
func wrkSliceLength(d time.Duration, n int) time.Duration {
	return wholeSeconds(d / time.Duration(max(n, 1)))
}

// wrkSide returns the side of wrk reading path on t with c connections.
func (b *benchRun) wrkSide(ctx context.Context, t *target, path string, auth bool, c int, label Result) (side, func(), error) {
	wr, err := newWrkRunner(ctx, b.cfg.wrk, t, path, auth, c)
	if err != nil {
		return side{}, func() {}, err
	}
	label.Concurrency, label.Tool = c, "wrk"
	return side{load: &wrkSlicer{wr: wr, pid: t.pid, kind: label.Scenario}, label: label}, wr.close, nil
}

// compareWithWrk measures the read at concurrency c on the server by this
// tool's own virtual users (the client refresh, login, publish and mixed
// go through) and by wrk in alternating slices, the tool's connections
// kept open between its slices.
func (b *benchRun) compareWithWrk(ctx context.Context, c int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "wrk", Concurrency: c},
		{Scenario: "read", Target: "server", Series: "wrk", Tool: "wrk", Concurrency: c}}
	client := newClient(b.t.base, c)
	defer client.CloseIdleConnections()
	workers := make([]*worker, c)
	for i := range workers {
		workers[i] = newWorker(i, b.t.base, client)
	}
	if err := shareUsers(ctx, b.t, workers); err != nil {
		b.failSides(labels, err)
		return
	}
	w, closeWrk, err := b.wrkSide(ctx, b.t, "/v1/users/read", true, c, labels[1])
	if err != nil {
		b.failSides(labels, err)
		return
	}
	defer closeWrk()
	runs := b.compare(ctx, [2]side{{load: &goSlicer{workers: workers, op: opRead, pid: b.t.pid}, label: labels[0]}, w}, b.cfg.wrkSlices)
	if q, ok := toolOverWrk(runs[0], runs[1]); ok {
		fmt.Printf("read at %d in alternating slices: this tool %s req/s, wrk %s req/s: ratio %.2f (want 0.90 to 1.10)\n",
			c, fmtRate(runs[0].ReqPerSec), fmtRate(runs[1].ReqPerSec), q)
	}
}

// compareLimiter measures the read at concurrency c, by wrk, on the bench's
// server (global limiter on, production settings) and on a second server
// started for this with the limiter off (RATE_LIMIT_MAX=0) and nothing else
// changed, on the same database and Redis namespace, in alternating slices
// (off, on, then on, off, ...).
func (b *benchRun) compareLimiter(ctx context.Context, c int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "limiter", Limiter: "off", Concurrency: c},
		{Scenario: "read", Target: "server", Series: "limiter", Limiter: "on", Concurrency: c}}
	off, stop, err := b.startTwin(ctx, withLimiterOff(b.env), "server-limiter-off.log")
	if err != nil {
		b.failSides(labels, fmt.Errorf("start the server with the limiter off: %w", err))
		return
	}
	defer stop()
	b.compareWrk(ctx, [2]*target{off, b.t}, [2]string{"/v1/users/read", "/v1/users/read"}, labels, b.cfg.limiterSlices)
	if ratio, on, off, ok := limiterRatio(b.runs); ok {
		fmt.Printf("read at %d: limiter on %s req/s, off %s req/s: on/off %.2f (want at least 0.95)\n", c, fmtRate(on), fmtRate(off), ratio)
	}
}

// startTwin starts a second server with env on the bench's database and
// Redis namespace, its log in logName, and returns the bench's target
// pointed at it (the bench's users, who are in the shared database) and
// how to stop it.
func (b *benchRun) startTwin(ctx context.Context, env []string, logName string) (*target, func(), error) {
	twin, url, err := startServer(ctx, b.cfg.server, env, filepath.Join(b.cfg.logs, logName))
	if err != nil {
		return nil, nil, err
	}
	t := *b.t
	t.base, t.metricsURL, t.pid = url, url+"/metrics", twin.pid()
	return &t, func() { _ = twin.stop(40 * time.Second) }, nil
}

// compareSession measures the read at concurrency c, by wrk, on the bench's
// server and on the session baseline (JWT verify plus one statement reading
// the owner and its session) in alternating slices: the read's target is a
// share of that baseline, and a machine whose speed drifts between two
// whole runs would decide it rather than the code.
func (b *benchRun) compareSession(ctx context.Context, c int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "session", Concurrency: c},
		{Scenario: "session", Target: "baseline", Series: "session", Concurrency: c}}
	bt := *b.t
	bt.base, bt.pid, bt.metricsURL = b.blURL, b.blPID, ""
	b.compareWrk(ctx, [2]*target{b.t, &bt}, [2]string{"/v1/users/read", baselinePath("session")}, labels, b.cfg.sessionSlices)
	if q, server, base, ok := sessionRatio(b.runs); ok {
		fmt.Printf("read at %d in alternating slices: server %s req/s, session baseline %s req/s: %.2f (want at least 0.90)\n",
			c, fmtRate(server), fmtRate(base), q)
	}
}

// compareAlg measures the read at concurrency c, by wrk, with HS256 and
// with EdDSA access tokens on one server, in alternating slices. That
// server is started for this with ACCESS_TOKEN_ALG=EdDSA and the bench's
// secret, on the same database and Redis namespace, so it accepts both:
// the HS256 tokens are the bench's users', the EdDSA ones those of users
// it registers itself. Only the verification of the signature differs
// between the two sides, and the server remembers a verified token, so
// wrk's c tokens, presented again and again, are each verified once.
func (b *benchRun) compareAlg(ctx context.Context, c int) {
	labels := [2]Result{{Scenario: "read", Target: "server", Series: "alg", Alg: "HS256", Concurrency: c},
		{Scenario: "read", Target: "server", Series: "alg", Alg: "EdDSA", Concurrency: c}}
	hs, stop, err := b.startTwin(ctx, withSetting(b.env, "ACCESS_TOKEN_ALG", "EdDSA"), "server-eddsa.log")
	if err != nil {
		b.failSides(labels, fmt.Errorf("start the server with EdDSA tokens: %w", err))
		return
	}
	defer stop()
	ed := *hs
	ed.pool = newUserPool(b.t.prefix+"-eddsa", hs.base)
	b.compareWrk(ctx, [2]*target{hs, &ed}, [2]string{"/v1/users/read", "/v1/users/read"}, labels, b.cfg.algSlices)
	if q, hsRate, edRate, ok := algRatio(b.runs); ok {
		fmt.Printf("read at %d on one server: HS256 tokens %s req/s, EdDSA tokens %s req/s: EdDSA/HS256 %.2f\n",
			c, fmtRate(hsRate), fmtRate(edRate), q)
	}
}

// compareWrk measures paths[i] on targets[i], both by wrk with the users'
// tokens, in n alternating slices, and records them labelled.
func (b *benchRun) compareWrk(ctx context.Context, targets [2]*target, paths [2]string, labels [2]Result, n int) {
	var sides [2]side
	for i, t := range targets {
		s, closeWrk, err := b.wrkSide(ctx, t, paths[i], true, labels[i].Concurrency, labels[i])
		if err != nil {
			b.failSides(labels, err)
			return
		}
		defer closeWrk()
		sides[i] = s
	}
	b.compare(ctx, sides, n)
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

// sessionRatio is the server's read rate over the session baseline's, in
// the alternating "session" series.
func sessionRatio(runs []*Result) (ratio, server, base float64, ok bool) {
	return seriesRatio(runs, "session", func(r *Result) string { return r.Target }, "server", "baseline")
}

// algRatio is the read rate with EdDSA tokens over the rate with HS256
// tokens, in the alternating "alg" series.
func algRatio(runs []*Result) (ratio, hs, ed float64, ok bool) {
	ratio, ed, hs, ok = seriesRatio(runs, "alg", func(r *Result) string { return r.Alg }, "EdDSA", "HS256")
	return ratio, hs, ed, ok
}

// seriesRatio is the rate of side over the rate of other in the
// alternating series named series, where side tells a run's side; ok is
// false unless both were measured.
func seriesRatio(runs []*Result, series string, sideOf func(*Result) string, side, other string) (ratio, a, b float64, ok bool) {
	for _, r := range runs {
		if r.Series != series || r.Error != "" {
			continue
		}
		switch sideOf(r) {
		case side:
			a = r.ReqPerSec
		case other:
			b = r.ReqPerSec
		}
	}
	if a <= 0 || b <= 0 {
		return 0, 0, 0, false
	}
	return a / b, a, b, true
}
