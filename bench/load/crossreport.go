package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// targetLevel is the concurrency the read targets are set at.
const targetLevel = 64

// readTargets are the rows of the read targets: throughput and p99 at 64,
// against the primary-key baseline with the limiter on, the limiter's
// cost, agreement with wrk, and against the baseline that checks the
// session too (BENCHMARKS.md, "The targets and why").
func (rp *report) readTargets() [][]string {
	var rows [][]string
	add := func(goal, got string, ok bool) { rows = append(rows, []string{goal, got, yesNo(ok)}) }
	r := rp.find("server", "read", targetLevel)
	if r == nil {
		return [][]string{{"read at 64", "not measured", "**no**"}}
	}
	add("read at 64: ≥ 10,000 req/s", fmtRate(r.ReqPerSec)+" req/s", r.ReqPerSec >= 10000)
	add("read at 64: p99 ≤ 20 ms", fmtMs(r.Latency.P99), r.Latency.P99 <= 20)
	if pk := rp.baseline("pk", targetLevel); pk != nil && pk.ReqPerSec > 0 && pk.Latency.P99 > 0 {
		add("read at 64, limiter on: ≥ 90% of the JWT + primary-key baseline (pk)", fmt.Sprintf("%s (%s vs %s req/s; of bare: %s)",
			ratio(r.ReqPerSec, pk), fmtRate(r.ReqPerSec), fmtRate(pk.ReqPerSec), ratio(r.ReqPerSec, rp.baseline("bare", targetLevel))),
			r.ReqPerSec >= 0.9*pk.ReqPerSec)
		p99 := r.Latency.P99 / pk.Latency.P99
		add("read at 64, limiter on: p99 ≤ 1.5 × pk's p99", fmt.Sprintf("%.2f × (%s vs %s)", p99, fmtMs(r.Latency.P99), fmtMs(pk.Latency.P99)), p99 <= 1.5)
	} else {
		rows = append(rows, []string{"read at 64 against pk", "pk not measured", "**no**"})
	}
	const sessionGoal = "read at 64: ≥ 1.00 × the JWT + owner-and-session baseline (session)"
	if q, server, base, ok := sessionRatio(rp.runs); ok {
		add(sessionGoal, fmt.Sprintf("%.2f (%s vs %s req/s in alternating slices)", q, fmtRate(server), fmtRate(base)), q >= 1)
	} else if sb := rp.baseline("session", targetLevel); sb != nil && sb.ReqPerSec > 0 {
		add(sessionGoal, fmt.Sprintf("%s (%s vs %s req/s, one run after the other)",
			ratio(r.ReqPerSec, sb), fmtRate(r.ReqPerSec), fmtRate(sb.ReqPerSec)), r.ReqPerSec >= sb.ReqPerSec)
	} else {
		rows = append(rows, []string{"read at 64 against session", "session not measured", "**no**"})
	}
	const sessionP99Goal = "read at 64: p99 ≤ 1.5 × session's p99"
	if q, err := seriesPair(rp.runs, "session", targetLevel); err == nil {
		add(sessionP99Goal, fmt.Sprintf("%.2f × (%s vs %s in alternating slices)", q.p99, fmtMs(q.server.Latency.P99),
			fmtMs(q.base.Latency.P99)), q.p99 <= 1.5)
	} else if sb := rp.baseline("session", targetLevel); sb != nil && sb.Latency.P99 > 0 {
		p99 := r.Latency.P99 / sb.Latency.P99
		add(sessionP99Goal, fmt.Sprintf("%.2f × (%s vs %s, one run after the other)", p99, fmtMs(r.Latency.P99),
			fmtMs(sb.Latency.P99)), p99 <= 1.5)
	} else {
		rows = append(rows, []string{sessionP99Goal, "session not measured", "**no**"})
	}
	if q, on, off, ok := limiterRatio(rp.runs); ok {
		add("read, limiter on / off ≥ 0.95", fmt.Sprintf("%.2f (%s vs %s req/s)", q, fmtRate(on), fmtRate(off)), q >= 0.95)
	} else {
		rows = append(rows, []string{"read, limiter on / off ≥ 0.95", "not measured", "**no**"})
	}
	if q, hs, ed, ok := algRatio(rp.runs); ok {
		add("read at 64 with EdDSA tokens: ≥ 90% of HS256", fmt.Sprintf("%.2f (%s vs %s req/s on one server in alternating slices)",
			q, fmtRate(ed), fmtRate(hs)), q >= 0.9)
	} else if rp.meta.AlgSlices > 0 {
		rows = append(rows, []string{"read at 64 with EdDSA tokens: ≥ 90% of HS256", "not measured", "**no**"})
	}
	if tool, w := rp.wrkPair(targetLevel); tool != nil && w != nil {
		q, _ := toolOverWrk(tool, w)
		add("read at 64: this tool's figure within 10% of wrk's", fmt.Sprintf("%.2f (%s vs %s req/s in alternating slices, "+
			"this tool's own client against wrk)", q, fmtRate(tool.ReqPerSec), fmtRate(w.ReqPerSec)), agrees(q))
	} else {
		rows = append(rows, []string{"read at 64: this tool's figure within 10% of wrk's", "not measured", "**no**"})
	}
	return rows
}

// wrkPair returns the read at concurrency c measured by this tool and by
// wrk in alternating slices, or nils.
func (rp *report) wrkPair(c int) (tool, wrk *Result) {
	for _, r := range rp.runs {
		if r.Series != "wrk" || r.Concurrency != c || r.Error != "" {
			continue
		}
		if r.Tool == "wrk" {
			wrk = r
		} else {
			tool = r
		}
	}
	if tool == nil || wrk == nil {
		return nil, nil
	}
	return tool, wrk
}

// agrees reports whether a ratio of two measures of one thing is within
// 10% of 1.
func agrees(q float64) bool { return q >= 0.9 && q <= 1.1 }

// seriesName is how a run beside the plan is named in lists.
func seriesName(r *Result) string {
	switch r.Series {
	case "wrk":
		return "(wrk)"
	case "open":
		return fmt.Sprintf("(open loop at %s/s)", fmtRate(r.Rate))
	case "limiter":
		return "(limiter " + r.Limiter + ")"
	case "session":
		return "(beside the session baseline)"
	case rotateSeries:
		return "(beside the rotate baseline)"
	case "alg":
		return "(" + r.Alg + " tokens)"
	case "mcp":
		return "(" + r.Via + ", OAuth token)"
	}
	return ""
}

// crossCheckSection shows the checks of the read's figures: wrk, the
// limiter off and on, and the open loop.
func (rp *report) crossCheckSection() string {
	var b strings.Builder
	b.WriteString(rp.wrkPart())
	b.WriteString(rp.limiterPart())
	b.WriteString(rp.sessionPart())
	b.WriteString(rp.algPart())
	b.WriteString(rp.mcpPart())
	b.WriteString(rp.openPart())
	if b.Len() == 0 {
		return ""
	}
	return "## read: cross-checks\n\n" + b.String()
}

// crossCheckNote says which read was cross-checked, if one was.
func (rp *report) crossCheckNote() string {
	for _, r := range rp.runs {
		if r.Series != "" {
			return fmt.Sprintf(", the read at %d followed by its [cross-checks](#read-cross-checks)", r.Concurrency)
		}
	}
	return ""
}

// series returns the runs of series, failed ones included.
func (rp *report) series(name string) []*Result {
	var out []*Result
	for _, r := range rp.runs {
		if r.Series == name {
			out = append(out, r)
		}
	}
	return out
}

// runCells are the cells every cross-check table shares.
func runCells(r *Result) []string {
	return []string{fmtRate(r.ReqPerSec), fmtMs(r.Latency.P50), fmtMs(r.Latency.P90), fmtMs(r.Latency.P99), fmtMs(r.Latency.Max),
		fmt.Sprint(r.ErrorCount()), cpuCell(r.CPU), beforeCell(r.CPU)}
}

// seriesRows are the table rows of the measured runs of a series: each
// named by name, with its concurrency and runCells.
func seriesRows(runs []*Result, name func(*Result) string) [][]string {
	var rows [][]string
	for _, r := range runs {
		if r.Error == "" {
			rows = append(rows, append([]string{name(r), fmt.Sprint(r.Concurrency)}, runCells(r)...))
		}
	}
	return rows
}

// runHeaders are the headers of runCells.
func runHeaders() []string {
	return []string{"req/s", "p50", "p90", "p99", "max", "errors", "CPU server / tool / rest / steal", "busy before"}
}

// notMeasured lists the failed runs of a series.
func notMeasured(runs []*Result) string {
	var lines []string
	for _, r := range runs {
		if r.Error != "" {
			lines = append(lines, strings.TrimSpace(fmt.Sprintf("- %s c=%d: not measured: %s", seriesName(r), r.Concurrency, r.Error)))
		}
	}
	if lines == nil {
		return ""
	}
	return "\n" + strings.Join(lines, "\n") + "\n"
}

// wrkPart compares this tool's read with wrk's at the same concurrency.
func (rp *report) wrkPart() string {
	runs := rp.series("wrk")
	if len(runs) == 0 {
		return ""
	}
	var rows [][]string
	var verdict string
	for _, c := range levels(runs) {
		tool, w := rp.wrkPair(c)
		if tool == nil {
			continue
		}
		if plan := rp.find("server", "read", c); plan != nil {
			rows = append(rows, append([]string{"wrk, the plan's run above", fmt.Sprint(c)}, runCells(plan)...))
			if p, ok := toolOverWrk(plan, w); ok {
				verdict += fmt.Sprintf("The plan's read at %d (wrk, one run) / wrk in the slices: %.2f. ", c, p)
			}
		}
		rows = append(rows, append([]string{"this tool, alternating with wrk", fmt.Sprint(c)}, runCells(tool)...))
		rows = append(rows, append([]string{"wrk, alternating with this tool", fmt.Sprint(c)}, runCells(w)...))
		if q, ok := toolOverWrk(tool, w); ok {
			verdict = fmt.Sprintf("**This tool / wrk, alternating: %.2f** (agreement within 10%%: %s). ", q, yesNo(agrees(q))) + verdict
		}
	}
	sliced := ""
	if n := rp.meta.WrkSlices; n > 0 {
		if d, err := time.ParseDuration(rp.meta.Duration); err == nil {
			sliced = fmt.Sprintf(" (%d of each, %s long)", n, wrkSliceLength(d, n))
		}
	}
	text := fmt.Sprintf("### The same read measured by wrk\n\nThe plan's read is wrk's (%s). After it, this tool's own virtual "+
		"users, the client that refresh, login, publish and mixed go through (fasthttp's, a keep-alive connection per virtual "+
		"user, each holding one user's token), and wrk read the same server at the same concurrency in alternating slices%s: this "+
		"tool, wrk, then wrk, this tool..., this tool's connections kept open and warm, so that a drift of the machine's speed "+
		"slows both alike. wrk runs as `wrk -t<cores> -c<c> -d<slice> -s <script>`, a Lua script giving each request the access "+
		"token of the next of the c users in turn; both are closed loops over keep-alive connections. The tool column is each "+
		"client's own CPU (wrk's from its resource usage): what it takes of the cores it shares with the server, and so what "+
		"a ratio below 1 comes from. wrk's percentiles come from its histogram of every answer, merged over the slices.\n\n",
		orUnknown(rp.meta.Machine.Wrk), sliced)
	return text + table(append([]string{"load from", "concurrency"}, runHeaders()...), rows) + "\n" + strings.TrimSpace(verdict) +
		"\n" + notMeasured(runs) + "\n"
}

// levels returns the concurrency levels of runs, in order of appearance.
func levels(runs []*Result) []int {
	var out []int
	for _, r := range runs {
		if !slices.Contains(out, r.Concurrency) {
			out = append(out, r.Concurrency)
		}
	}
	return out
}

// limiterPart shows the read with the global limiter off and on.
func (rp *report) limiterPart() string {
	runs := rp.series("limiter")
	if len(runs) == 0 {
		return ""
	}
	rows := seriesRows(runs, func(r *Result) string { return r.Limiter })
	sliced := ""
	if n := rp.meta.LimiterSlices; n > 0 {
		sliced = fmt.Sprintf(" %d slices of %s", n, sliceLength(rp.meta.Duration, n))
	}
	text := fmt.Sprintf("### The global limiter off and on\n\nThe bench's server runs with the limiters on as in production: "+
		"`RATE_LIMIT_WINDOW` and `RATE_LIMIT_SYNC_INTERVAL` (1 s) at their defaults and only the maxima raised, "+
		"`RATE_LIMIT_MAX` and `AUTH_RATE_LIMIT_MAX` to %s, because all the bench's traffic comes from one address and the "+
		"default 300 requests in 5 minutes would refuse nearly all of it. The limiter does the same work as with the default "+
		"maximum (every request counted in process, the counts synced with Redis every second), it only never refuses. "+
		"For this comparison a second server was started with `RATE_LIMIT_MAX=0` and nothing else changed, on the same "+
		"database and Redis namespace, and wrk read the two in alternating slices (off, on, then on, off, ...),%s "+
		"of each after a warm-up: a machine whose speed drifts slows both alike. "+
		"Each row sums its side's slices.\n\n", fmtRate(benchLimit), sliced)
	out := text + table(append([]string{"limiter", "concurrency"}, runHeaders()...), rows)
	if q, on, off, ok := limiterRatio(rp.runs); ok {
		out += fmt.Sprintf("\n**Limiter on / off: %.2f** (%s vs %s req/s; target ≥ 0.95: %s).\n", q, fmtRate(on), fmtRate(off), yesNo(q >= 0.95))
	}
	return out + notMeasured(runs) + "\n"
}

// sessionPart shows the read beside the session baseline, in alternating
// slices.
func (rp *report) sessionPart() string {
	runs := rp.series("session")
	if len(runs) == 0 {
		return ""
	}
	rows := seriesRows(runs, func(r *Result) string { return r.Target + " (" + r.Scenario + ")" })
	text := fmt.Sprintf("### The read beside the session baseline\n\nEvery authenticated request checks its session in the "+
		"statement that reads its owner. The read's target is a share of the least a program can do for that (the `session` "+
		"baseline), so wrk read the two in alternating slices, %d slices of %s each after a warm-up: a machine whose speed "+
		"drifts slows both alike. Each row sums its side's slices.\n\n",
		rp.meta.SessionSlices, sliceLength(rp.meta.Duration, max(rp.meta.SessionSlices, 1)))
	out := text + table(append([]string{"target", "concurrency"}, runHeaders()...), rows)
	if q, server, base, ok := sessionRatio(rp.runs); ok {
		out += fmt.Sprintf("\n**Read / session baseline: %.2f** (%s vs %s req/s; target ≥ 1.00: %s).\n", q, fmtRate(server), fmtRate(base), yesNo(q >= 1))
	}
	return out + notMeasured(runs) + "\n"
}

// algPart shows the read with HS256 and with EdDSA access tokens on one
// server, in alternating slices.
func (rp *report) algPart() string {
	runs := rp.series("alg")
	if len(runs) == 0 {
		return ""
	}
	rows := seriesRows(runs, func(r *Result) string { return r.Alg })
	text := fmt.Sprintf("### HS256 and EdDSA access tokens\n\nA second server was started with `ACCESS_TOKEN_ALG=EdDSA` "+
		"and the bench's `ACCESS_TOKEN_SECRET`, on the same database and Redis namespace, so that it accepts both kinds of "+
		"token: the HS256 tokens of the bench's users and the EdDSA tokens (with a `kid`) of users it registered itself. "+
		"wrk read it with the one and with the other in alternating slices, %d slices of %s each after a warm-up. "+
		"Only the verification of the signature differs, and the server remembers a verified token (8,192 of them), so "+
		"each of wrk's tokens is verified once and then found again: the figures are those of clients presenting the "+
		"same token for its 15 minutes, as real clients do. A first verification costs about ten times more with "+
		"Ed25519 than with HMAC-SHA-256 (`go test -run '^$' -bench BenchmarkVerify ./auth`, in "+
		"[docs/tokens.md](docs/tokens.md)). Each row sums its side's slices.\n\n",
		rp.meta.AlgSlices, sliceLength(rp.meta.Duration, max(rp.meta.AlgSlices, 1)))
	out := text + table(append([]string{"tokens", "concurrency"}, runHeaders()...), rows)
	if q, hs, ed, ok := algRatio(rp.runs); ok {
		out += fmt.Sprintf("\n**EdDSA / HS256: %.2f** (%s vs %s req/s; target ≥ 0.90: %s).\n", q, fmtRate(ed), fmtRate(hs), yesNo(q >= 0.9))
	}
	return out + notMeasured(runs) + "\n"
}

// sliceLength writes a run's duration (as Meta holds it) divided by n, in
// whole seconds (wrk's unit).
func sliceLength(duration string, n int) string {
	d, err := time.ParseDuration(duration)
	if err != nil || n < 1 {
		return "?"
	}
	return wrkSliceLength(d, n).String()
}

// openPart lists the open-loop runs.
func (rp *report) openPart() string {
	runs := rp.series("open")
	if len(runs) == 0 {
		return ""
	}
	var rows [][]string
	for _, r := range runs {
		if r.Error != "" {
			continue
		}
		lag := "n/a"
		if r.Lag != nil {
			lag = fmtMs(r.Lag.P50) + " / " + fmtMs(r.Lag.P99) + " / " + fmtMs(r.Lag.Max)
		}
		cells := runCells(r)
		rows = append(rows, append(append([]string{fmtRate(r.Rate), fmt.Sprint(r.Concurrency)}, cells[:6]...), append([]string{lag}, cells[6:]...)...))
	}
	share := ""
	if rp.meta.OpenShare > 0 {
		share = fmt.Sprintf(", %.0f%% of the closed loop's rate at the same concurrency", 100*rp.meta.OpenShare)
	}
	text := "### The read in an open loop\n\nThe closed loops above send a request only when an answer came back, so a " +
		"server that stalls is sent less and its stall hides in a few slow requests (coordinated omission). Here vegeta (" +
		orUnknown(rp.meta.Machine.Vegeta) + ", through this tool's fasthttp client) sends requests due on a fixed schedule" + share +
		", whatever the answers, carried by the given number of connections; each request is timed from when it was due " +
		"(from vegeta's sequence number and its pacing), so time spent waiting for a free connection behind a stall counts. " +
		"\"Sent late\" is how long after their due time requests left (p50 / p99 / max): all connections busy, or the tool late. " +
		"`bin/load run -scenario read -rate 3000/s -d 10s` runs one.\n\n"
	rh := runHeaders()
	headers := append(append([]string{"scheduled req/s", "connections"}, rh[:6]...), append([]string{"sent late"}, rh[6:]...)...)
	headers[2] = "achieved req/s"
	return text + table(headers, rows) + notMeasured(runs) + "\n"
}

// orUnknown returns s, or "version unknown".
func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}
