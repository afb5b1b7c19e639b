package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// mib is a mebibyte in bytes.
const mib = 1 << 20

// best returns the run of scenario on the server with the highest
// operation rate, or nil.
func (rp *report) best(scenario string) *Result {
	var b *Result
	for _, r := range rp.runs {
		if r.Target == "server" && r.Scenario == scenario && r.Series == "" && r.Error == "" && (b == nil || r.OpsPerSec > b.OpsPerSec) {
			b = r
		}
	}
	return b
}

// yesNo writes whether a target was met, a miss in bold.
func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// targetsSection compares the runs with their targets (BENCHMARKS.md,
// "The targets and why", gives the reason for each).
func (rp *report) targetsSection() string {
	var rows [][]string
	add := func(goal, got string, ok bool) { rows = append(rows, []string{goal, got, yesNo(ok)}) }
	missing := func(goal string) { rows = append(rows, []string{goal, "not measured", "**no**"}) }
	rows = append(rows, rp.readTargets()...)
	if r := rp.best("refresh"); r != nil {
		var errs int64
		checks := true
		for _, o := range rp.runs {
			if o.Target == "server" && o.Scenario == "refresh" && (o.Series == "" || o.Series == rotateSeries) {
				errs += o.ErrorCount()
				checks = checks && o.ChecksOK() && o.Error == ""
			}
		}
		add("refresh: ≥ 1,800/s", fmt.Sprintf("%s/s (c=%d)", fmtRate(r.OpsPerSec), r.Concurrency), r.OpsPerSec >= 1800)
		add("refresh: zero errors, no lost or forked chain", fmt.Sprintf("%d errors; checks %s", errs, okWord(checks)), errs == 0 && checks)
	} else {
		missing("refresh")
	}
	rows = append(rows, rp.refreshTargets()...)
	if r := rp.find("server", "login", 64); r != nil && rp.meta.Argon.PerSec > 0 {
		share := r.OpsPerSec / rp.meta.Argon.PerSec
		add("login at 64: ≥ 90% of the Argon2id bound", fmt.Sprintf("%.0f%% (%s/s of %s)", 100*share, fmtRate(r.OpsPerSec),
			fmtRate(rp.meta.Argon.PerSec)), share >= 0.9)
		add("login at 64: peak RSS < 600 MiB", peakCell(r.Peak), r.Peak != nil && peakRSS(r.Peak) < 600*mib)
	} else {
		missing("login at 64")
	}
	rows = append(rows, rp.twoStepTargets()...)
	if r := rp.best("publish"); r != nil {
		add("publish: ≥ 1,500/s (create + publish)", fmt.Sprintf("%s/s (c=%d)", fmtRate(r.OpsPerSec), r.Concurrency), r.OpsPerSec >= 1500)
	} else {
		missing("publish")
	}
	rows = append(rows, rp.oauthTargets()...)
	rows = append(rows, rp.socketTargets()...)
	idle := max(rp.meta.Idle.RSS, rp.meta.Idle.VmRSS)
	add("idle RSS < 60 MiB", fmtBytes(idle), idle > 0 && idle < 60*mib)
	var fivexx int64
	for _, r := range rp.runs {
		if r.Target == "server" {
			fivexx += r.Status5xx
		}
	}
	add("zero 5xx in every run", fmt.Sprint(fivexx), fivexx == 0)
	return "## Against the targets\n\n" + table([]string{"target", "measured", "met"}, rows) + "\n"
}

// socketTargets are the rows of the targets of the 2,000-client run.
func (rp *report) socketTargets() [][]string {
	r := rp.find("server", "sockets", 2000)
	if r == nil || r.Sockets == nil {
		return [][]string{{"sockets at 2,000 clients", "not measured", "**no**"}}
	}
	s := r.Sockets
	return [][]string{
		{"sockets at 2,000: every client receives every event", fmt.Sprintf("%d of %d clients got all %d events", s.ClientsWithAll, s.Clients, s.Posts), yesNo(s.AllReceived)},
		{"sockets at 2,000: delivery p99 ≤ 250 ms", fmtMs(s.Delivery.P99), yesNo(s.Receipts > 0 && s.Delivery.P99 <= 250)},
		{"sockets at 2,000: RSS < 400 MiB", peakCell(r.Peak), yesNo(r.Peak != nil && peakRSS(r.Peak) < 400*mib)},
	}
}

// socketsSection is the table of the sockets runs.
func (rp *report) socketsSection() string {
	var rows [][]string
	var notes []string
	for _, r := range rp.runs {
		if r.Scenario != "sockets" {
			continue
		}
		if r.Error != "" || r.Sockets == nil {
			notes = append(notes, fmt.Sprintf("- %d clients: not measured: %s", r.Concurrency, r.Error))
			continue
		}
		s := r.Sockets
		rows = append(rows, []string{fmt.Sprint(s.Clients), fmt.Sprintf("%d in %.1f s", s.Joined, s.ConnectSeconds), fmt.Sprint(s.Posts),
			fmt.Sprintf("%d / %d", s.Receipts, s.Expected), yesNo(s.AllReceived), fmtMs(s.Delivery.P50), fmtMs(s.Delivery.P90),
			fmtMs(s.Delivery.P99), fmtMs(s.Delivery.Max), fmtMs(s.First.P50) + " / " + fmtMs(s.Last.P50), fmt.Sprint(s.Early), peakCell(r.Peak), heapCell(r.Peak), goroutinesCell(r.Peak), cpuCell(r.CPU), beforeCell(r.CPU), fmtMs(r.Latency.P50)})
		if len(s.ConnectErrors) > 0 || s.Disconnects > 0 || s.Duplicates > 0 || s.Unexpected > 0 || r.Failed > 0 || len(s.Missing) > 0 {
			missing, _ := json.Marshal(s.Missing)
			notes = append(notes, fmt.Sprintf("- %d clients: connect errors %v, %d disconnects, %d duplicates, %d unexpected events, "+
				"%d failed publishes; clients lacking a post: `%s`", s.Clients, s.ConnectErrors, s.Disconnects, s.Duplicates,
				s.Unexpected, r.Failed, missing))
		}
	}
	if rows == nil && notes == nil {
		return ""
	}
	out := "## sockets: clients in FEED, posts published through HTTP\n\n" +
		fmt.Sprintf("Node's socket.io-client 4.8.1 over websocket, up to 1,000 clients per node process; clients share the "+
			"tokens of up to 100 users. %d posts, one every %s, each created and published directly by one user. Delivery runs from "+
			"the moment the publish answer reached the tool to the event's receipt at a client, both read from the same wall clock; "+
			"\"first / last client\" is the median over the posts of the delivery to the first and to the last client to get each: "+
			"their gap is the fan-out, the server's writes and the node clients' reads sharing the same cores. "+
			"\"early\" counts receipts before that answer (negative delivery). Publish p50 is the HTTP create + publish.\n\n",
			rp.meta.Posts, rp.meta.Interval) +
		table([]string{"clients", "joined", "posts", "receipts", "every client got every event", "delivery p50", "p90", "p99", "max",
			"first / last client (p50 over posts)", "early", "peak RSS (MiB at start)", "peak heap", "peak goroutines", "CPU server / tool / rest / steal", "busy before", "publish p50"}, rows)
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n") + "\n"
	}
	return out + "\n"
}

// problemsSection lists every failed request and every run not made.
func (rp *report) problemsSection() string {
	var lines []string
	for _, r := range rp.runs {
		name := fmt.Sprintf("%s %s c=%d", r.Target, r.Scenario, r.Concurrency)
		if s := seriesName(r); s != "" {
			name = fmt.Sprintf("%s %s %s c=%d", r.Target, r.Scenario, s, r.Concurrency)
		}
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("- %s: not measured: %s", name, r.Error))
		}
		for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
			lines = append(lines, fmt.Sprintf("- %s: %d × `%s`", name, r.Errors[k], k))
		}
	}
	if len(lines) == 0 {
		return "## Errors\n\nNo request failed in any run.\n"
	}
	return "## Errors\n\nBy status and error code (or transport failure), with the request kind:\n\n" + strings.Join(lines, "\n") + "\n"
}
