package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The server's refresh beside the rotate baseline: the least a program can
// do for the same rotation (rotatebase.go). Each refresh needs the token
// the previous answer gave, so this tool's virtual users drive both, in
// alternating slices at each level, each side rotating chains of its own.

// defaultRotateLevels are the levels of the comparison: those at which the
// refresh was measured against a limit program.
const defaultRotateLevels = "8,32"

// defaultRotateSlices is how many slices each side of the comparison gets
// at each level. The server and rotate sit within a few percent of each
// other, which six slices of a second (about ±7% from run to run on a
// 2-core machine) cannot tell apart; twenty cost make bench about a
// minute more and make one run's verdict a measurement rather than a draw.
const defaultRotateSlices = 20

// rotateSeries is the Series of the comparison's runs.
const rotateSeries = "rotate"

// rotateControlSeries is the Series of a control run's two sides (one
// program against itself, -rotate-sides), which no target reads.
const rotateControlSeries = "rotate-control"

// The names of -rotate-sides.
const (
	sideServer = "server"
	sideRotate = "rotate"
)

// parseSides parses -rotate-sides: two of server and rotate, by a comma.
func parseSides(s string) ([2]string, error) {
	var out [2]string
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return out, fmt.Errorf("%q: want two sides separated by a comma", s)
	}
	for i, name := range []string{strings.TrimSpace(a), strings.TrimSpace(b)} {
		if name != sideServer && name != sideRotate {
			return out, fmt.Errorf("%q: a side is %s or %s", name, sideServer, sideRotate)
		}
		out[i] = name
	}
	return out, nil
}

// rotateP99Goal is the most the server's refresh p99 may be, as a multiple
// of the rotate baseline's measured in the same slices.
const rotateP99Goal = 1.5

// rotateRateGoal is the least the server's refresh rate may be, as a
// share of the rotate baseline's measured in the same slices: the
// framework around an action may cost it at most 5%, the budget the
// global limiter and the OAuth provider have on the read. rotate shares
// every other part of the refresh with the server (its statement, token
// minter, pool and driver), so the ratio is the framework's whole cost;
// one program against itself (-rotate-sides rotate,rotate) lands within
// about 2% of 1.00 in one run of twenty slices, so a bar at 1.00 would
// be a coin toss even for rotate.
const rotateRateGoal = 0.95

// parseLevels reads concurrency levels, "8,32", in order; "" is none.
func parseLevels(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 1 || c > 10000 {
			return nil, fmt.Errorf("level %q is not a number from 1 to 10000", f)
		}
		out = append(out, c)
	}
	return out, nil
}

// compareRefresh measures the server's refresh beside the rotate baseline
// at each of cfg.rotateLevels, in cfg.rotateSlices alternating slices.
func (b *benchRun) compareRefresh(ctx context.Context) {
	for _, c := range b.cfg.rotateLevels {
		if ctx.Err() != nil {
			return
		}
		b.compareRotate(ctx, c)
		time.Sleep(500 * time.Millisecond)
	}
}

// compareRotate measures, at concurrency c, the server's refresh and the
// rotate baseline, each by c virtual users of this tool rotating chains of
// their own (users registered on the server for this, one chain each), in
// alternating slices after a warm-up; each side's chains are then checked
// as the refresh scenario's are. The sides are b.cfg.rotateSides: the
// server's and the baseline's unless a control run asked otherwise.
func (b *benchRun) compareRotate(ctx context.Context, c int) {
	bt := *b.t
	bt.base, bt.pid, bt.metricsURL = b.blURL, b.blPID, ""
	labels := rotateLabels(b.cfg.rotateSides, c)
	series := labels[0].Series
	var targets [2]*target
	var ops [2]opFunc
	for i, name := range b.cfg.rotateSides {
		if name == sideServer {
			targets[i], ops[i] = b.t, opRefresh
		} else {
			targets[i], ops[i] = &bt, refreshAt(rotatePath)
		}
	}
	// The chains are the server's registrations, for either side: 2c of
	// them registered together and dealt out alternately, so that neither
	// side's chains are the newest (see interleave).
	chains, err := freshChains(ctx, b.t, 2*c)
	if err != nil {
		b.failSides(labels, fmt.Errorf("register the chains: %w", err))
		return
	}
	var sides [2]side
	for i, t := range targets {
		client := newClient(t.base, c)
		defer client.CloseIdleConnections()
		workers := make([]*worker, c)
		for j := range workers {
			workers[j] = newWorker(j, t.base, client)
		}
		assignUsers(workers, interleave(chains, i))
		op := ops[i]
		sides[i] = side{load: &goSlicer{workers: workers, op: op, pid: t.pid}, label: labels[i],
			checks: func(ctx context.Context) []Check {
				users := chainUsers(workers)
				return []Check{refreshOnceMore(ctx, t, users, op), liveSessions(ctx, b.t.databaseURL, users)}
			}}
	}
	runs := b.compare(ctx, sides, b.cfg.rotateSlices)
	if series == rotateControlSeries {
		if len(runs) == 2 && runs[1].OpsPerSec > 0 {
			fmt.Printf("control at %d: %s against itself in alternating slices: first side %s/s, second %s/s: rate %.2f\n",
				c, b.cfg.rotateSides[0], fmtRate(runs[0].OpsPerSec), fmtRate(runs[1].OpsPerSec), runs[0].OpsPerSec/runs[1].OpsPerSec)
		}
		return
	}
	if q, err := refreshRatio(b.runs, c); err == nil {
		fmt.Printf("refresh at %d in alternating slices: server %s/s p99 %s, rotate baseline %s/s p99 %s: rate %.2f, p99 %.2f ×\n",
			c, fmtRate(q.server.OpsPerSec), fmtMs(q.server.Latency.P99), fmtRate(q.base.OpsPerSec), fmtMs(q.base.Latency.P99), q.rate, q.p99)
	}
}

// rotateLabels labels the comparison's sides at concurrency c by what each
// runs; one program on both sides is a control, in a series of its own
// that no target reads.
func rotateLabels(sides [2]string, c int) [2]Result {
	series := rotateSeries
	if sides[0] == sides[1] {
		series = rotateControlSeries
	}
	var labels [2]Result
	for i, name := range sides {
		if name == sideServer {
			labels[i] = Result{Scenario: "refresh", Target: "server", Series: series, Concurrency: c}
		} else {
			labels[i] = Result{Scenario: "rotate", Target: "baseline", Series: series, Concurrency: c}
		}
	}
	return labels
}

// pairRatio compares the server's side of an alternating series with the
// baseline's: rates (operations per second) and p99s.
type pairRatio struct {
	server, base *Result
	rate, p99    float64 // server over baseline
}

// seriesPair finds the server's and the baseline's runs of series at
// concurrency c and compares them; it fails when either is missing,
// failed or empty.
func seriesPair(runs []*Result, series string, c int) (pairRatio, error) {
	var q pairRatio
	for _, r := range runs {
		if r.Series != series || r.Concurrency != c || r.Error != "" {
			continue
		}
		if r.Target == "baseline" {
			q.base = r
		} else {
			q.server = r
		}
	}
	switch {
	case q.server == nil || q.base == nil:
		return q, errors.New("not measured")
	case q.base.OpsPerSec <= 0 || q.base.Latency.P99 <= 0 || q.server.Latency.P99 <= 0:
		return q, errors.New("no operations measured")
	}
	q.rate, q.p99 = q.server.OpsPerSec/q.base.OpsPerSec, q.server.Latency.P99/q.base.Latency.P99
	return q, nil
}

// refreshRatio compares the server's refresh with the rotate baseline at
// concurrency c.
func refreshRatio(runs []*Result, c int) (pairRatio, error) { return seriesPair(runs, rotateSeries, c) }

// refreshTargets are the rows of the refresh's targets beside the rotate
// baseline, one pair per level measured (or asked for).
func (rp *report) refreshTargets() [][]string {
	var rows [][]string
	for _, c := range rp.rotateLevels() {
		rateGoal := fmt.Sprintf("refresh at %d: ≥ %.2f × the rotate baseline's rate (alternating slices)", c, rotateRateGoal)
		p99Goal := fmt.Sprintf("refresh at %d: p99 ≤ %.1f × the rotate baseline's", c, rotateP99Goal)
		q, err := refreshRatio(rp.runs, c)
		if err != nil {
			rows = append(rows, []string{rateGoal, err.Error(), "**no**"}, []string{p99Goal, err.Error(), "**no**"})
			continue
		}
		rows = append(rows,
			[]string{rateGoal, fmt.Sprintf("%.2f (%s vs %s/s)", q.rate, fmtRate(q.server.OpsPerSec), fmtRate(q.base.OpsPerSec)), yesNo(q.rate >= rotateRateGoal)},
			[]string{p99Goal, fmt.Sprintf("%.2f × (%s vs %s)", q.p99, fmtMs(q.server.Latency.P99), fmtMs(q.base.Latency.P99)), yesNo(q.p99 <= rotateP99Goal)})
	}
	return rows
}

// rotateLevels are the levels of the rotate series in the runs, or, when
// none was recorded but the bench asked for some, those it asked for.
func (rp *report) rotateLevels() []int {
	if got := levels(rp.series(rotateSeries)); len(got) > 0 {
		return got
	}
	if rp.meta.RotateSlices > 0 {
		return rp.meta.RotateLevels
	}
	return nil
}

// rotatePart shows the server's refresh beside the rotate baseline.
func (rp *report) rotatePart() string {
	runs := rp.series(rotateSeries)
	if len(runs) == 0 {
		return ""
	}
	rows := seriesRows(runs, func(r *Result) string { return r.Target + " (" + r.Scenario + ")" })
	text := fmt.Sprintf("### The refresh beside the rotate baseline\n\nThe `rotate` baseline is %s. "+
		"Each refresh needs the token the previous answer gave, so this tool's virtual users drive both, c of them on each "+
		"side, each rotating a chain of its own (users registered on the server for this, all together, and dealt out to the "+
		"two sides alternately in the order they were created, so that neither side's rows are the newer), in alternating slices at each level, %d slices of %s each after a warm-up: a "+
		"machine whose speed drifts slows both alike. Each row sums its side's slices; the rates are refreshes per second. "+
		"Afterwards every chain of both sides refreshes once more and each of their users has exactly one live session.\n\n",
		rotateAbout, rp.meta.RotateSlices, sliceLength(rp.meta.Duration, max(rp.meta.RotateSlices, 1)))
	out := text + table(append([]string{"target", "concurrency"}, runHeaders()...), rows)
	var verdicts []string
	for _, c := range levels(runs) {
		if q, err := refreshRatio(rp.runs, c); err == nil {
			verdicts = append(verdicts, fmt.Sprintf("**At %d: refresh / rotate %.2f, p99 %.2f ×** (%s vs %s/s, p99 %s vs %s; "+
				"targets ≥ %.2f: %s, p99 ≤ %.1f ×: %s).", c, q.rate, q.p99, fmtRate(q.server.OpsPerSec), fmtRate(q.base.OpsPerSec),
				fmtMs(q.server.Latency.P99), fmtMs(q.base.Latency.P99), rotateRateGoal, yesNo(q.rate >= rotateRateGoal), rotateP99Goal,
				yesNo(q.p99 <= rotateP99Goal)))
		}
	}
	if len(verdicts) > 0 {
		out += "\n" + strings.Join(verdicts, " ") + "\n"
	}
	var costs []string
	for _, c := range levels(runs) {
		if q, err := refreshRatio(rp.runs, c); err == nil {
			if line := cpuPerRefresh(q, c); line != "" {
				costs = append(costs, line)
			}
		}
	}
	if len(costs) > 0 {
		out += "\nCPU a refresh, server against `rotate`, from the CPU columns (the cores used over the slices, divided by the rate): " +
			strings.Join(costs, " ") + "\n"
	}
	var notes []string
	for _, r := range runs {
		for _, ch := range r.Checks {
			notes = append(notes, fmt.Sprintf("- %s c=%d: %s: **%s** (%s)", r.Target+" ("+r.Scenario+")", r.Concurrency, ch.Name, okWord(ch.OK), ch.Detail))
		}
	}
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n") + "\n"
	}
	return out + notMeasured(runs) + "\n"
}

// opCPU is the CPU one operation of r took, in milliseconds, by where it
// ran: the measured program, PostgreSQL, this tool and the rest of the
// machine.
type opCPU struct{ program, database, tool, rest float64 }

// cpuPerOp divides r's CPU use by its rate; ok is false when the program's
// or PostgreSQL's use was not measured.
func cpuPerOp(r *Result) (opCPU, bool) {
	u := r.CPU
	if u == nil || u.Server < 0 || u.Database <= 0 || r.OpsPerSec <= 0 {
		return opCPU{}, false
	}
	ms := 1000 / r.OpsPerSec
	return opCPU{program: u.Server * ms, database: u.Database * ms, tool: u.Tool * ms,
		rest: max(0, u.Busy-u.Server-u.Database-u.Tool) * ms}, true
}

// cpuPerRefresh says where the CPU of a refresh went on each side at
// level c, or "" when either side's was not measured.
func cpuPerRefresh(q pairRatio, c int) string {
	s, ok1 := cpuPerOp(q.server)
	b, ok2 := cpuPerOp(q.base)
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("At %d: the program %.3f against %.3f ms (%.2f ×), PostgreSQL %.3f against %.3f ms, this tool %.3f against "+
		"%.3f ms, the rest of the machine %.3f against %.3f ms.", c, s.program, b.program, s.program/b.program,
		s.database, b.database, s.tool, b.tool, s.rest, b.rest)
}
