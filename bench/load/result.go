package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// target is the server under load and what the tool knows of it.
type target struct {
	base        string // http://127.0.0.1:port
	metricsURL  string // base + /metrics, or empty
	pid         int    // 0 when unknown
	databaseURL string // the server's database, for checks; may be empty
	pool        *userPool
	totp        *totpPool // users with TOTP on, for the two-step login
	prefix      string    // unique per tool run: e-mails of its users
	fresh       int       // pools of fresh users made so far
	mix         mix
}

// Result is one measured run, written as one JSON line.
type Result struct {
	// Kind is "run" for a run (other lines of a results file are "meta").
	Kind string `json:"kind"`
	// Scenario is read, refresh, login, publish, mixed or sockets for the
	// server, or a baseline's name (bare, pk, session).
	Scenario    string `json:"scenario"`
	Target      string `json:"target"` // server or baseline
	Concurrency int    `json:"concurrency"`
	// Series sets apart the runs beside the plan's steps: "wrk" (the read
	// measured by wrk), "open" (the read in an open loop) and "limiter"
	// (the read on a server with the global limiter on or off); empty for
	// a step of the plan.
	Series string `json:"series,omitempty"`
	// Tool is what generated the load: "wrk" (the read and the
	// baselines), "vegeta" (the open loop), or empty for this tool's own
	// virtual users (the other scenarios, and the read beside wrk's).
	Tool string `json:"tool,omitempty"`
	// Limiter is the server's global limiter in the limiter series: "on"
	// (production settings) or "off" (RATE_LIMIT_MAX=0).
	Limiter string `json:"limiter,omitempty"`
	// Via is how the mcp series reads: "http" (GET /v1/users/read with an
	// OAuth token) or "mcp" (the tool read_account).
	Via string `json:"via,omitempty"`
	// Alg is the access tokens' signing algorithm in the alg series:
	// "HS256" or "EdDSA".
	Alg string `json:"alg,omitempty"`
	// Provider is the OAuth provider in the provider series: "off" (the
	// bench's server) or "on" (the OAuth server, oauth.go).
	Provider string `json:"provider,omitempty"`
	// Rate is an open-loop run's schedule, in operations per second.
	Rate      float64   `json:"rate,omitempty"`
	Mix       string    `json:"mix,omitempty"`
	Started   time.Time `json:"started"`
	Seconds   float64   `json:"seconds"` // the measured window
	Ops       int64     `json:"ops"`
	Failed    int64     `json:"failedOps"`
	Requests  int64     `json:"requests"`
	OpsPerSec float64   `json:"opsPerSec"`
	ReqPerSec float64   `json:"reqPerSec"`
	// Latency is per operation (an iteration: create+publish counts once);
	// in an open loop, from the operation's scheduled start.
	Latency Latency `json:"latency"`
	// Lag is, in an open loop, how late operations were sent after their
	// scheduled start (every connection busy, or the tool late).
	Lag *Latency `json:"sendLag,omitempty"`
	// Kinds is per request kind (read, create, publish, refresh, login).
	Kinds     map[string]Latency `json:"kinds,omitempty"`
	Errors    map[string]int64   `json:"errors,omitempty"`
	Status5xx int64              `json:"status5xx"`
	Stopped   int                `json:"stoppedUsers,omitempty"`
	Peak      *Peak              `json:"peak,omitempty"`
	CPU       *CPUUse            `json:"cpu,omitempty"`
	Checks    []Check            `json:"checks,omitempty"`
	Sockets   *SocketStats       `json:"sockets,omitempty"`
	// Error says why the run could not be made, if it could not.
	Error string `json:"error,omitempty"`
}

// ErrorCount is the number of failed requests.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// ChecksOK reports whether every check passed.
func (r *Result) ChecksOK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// runHTTP runs scenario sc against base with concurrency virtual users of
// this tool, sampling the server when t knows its metrics or pid.
func runHTTP(ctx context.Context, t *target, base string, sc *scenario, concurrency int, cfg runConfig) (*Result, error) {
	client := newClient(base, concurrency)
	defer client.CloseIdleConnections()
	workers := make([]*worker, concurrency)
	for i := range workers {
		workers[i] = newWorker(i, base, client)
	}
	if err := sc.prepare(ctx, t, workers); err != nil {
		return nil, fmt.Errorf("%s: prepare: %w", sc.name, err)
	}
	res := &Result{Kind: "run", Scenario: sc.name, Target: "server", Concurrency: concurrency, Started: time.Now()}
	smp := startSampler(ctx, t.metricsURL, t.pid)
	m := runLoad(ctx, cfg, workers, sc.op)
	peak, use := smp.stop()
	res.Peak, res.CPU = &peak, &use
	if sc.verify != nil {
		// The checks run even when the run was cut short: a chain must
		// survive an interrupted run too.
		vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		res.Checks = sc.verify(vctx, t, workers)
		cancel()
	}
	fill(res, m)
	if err := ctx.Err(); err != nil {
		res.Error = "cut short: " + err.Error()
	}
	return res, nil
}

// fill copies what runLoad measured into res.
func fill(res *Result, m measured) {
	rec := m.rec
	res.Seconds = m.elapsed.Seconds()
	res.Ops, res.Failed, res.Requests = int64(len(rec.ops)), rec.failed, rec.requests
	if res.Seconds > 0 {
		res.OpsPerSec = float64(res.Ops) / res.Seconds
		res.ReqPerSec = float64(res.Requests) / res.Seconds
	}
	res.Latency = summarize(rec.ops)
	res.Kinds = map[string]Latency{}
	for k, v := range rec.byKind {
		res.Kinds[k] = summarize(v)
	}
	if len(rec.errors) > 0 {
		res.Errors = rec.errors
	}
	res.Status5xx = rec.fivexx
	res.Stopped = m.stopped
}

// appendJSONLine appends v to path as one JSON line.
func appendJSONLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printSummary writes a human summary of r.
func printSummary(w io.Writer, r *Result) {
	name := r.Scenario
	if r.Target == "baseline" {
		name = "baseline " + name
	}
	switch {
	case r.Error != "":
		fmt.Fprintf(w, "%-16s c=%-5d FAILED: %s\n", name, r.Concurrency, r.Error)
		return
	case r.Sockets != nil:
		s := r.Sockets
		fmt.Fprintf(w, "%-16s c=%-5d %d/%d joined in %.1fs; %d posts; %d/%d receipts; delivery p50 %s p90 %s p99 %s max %s; every client got every event: %v\n",
			name, r.Concurrency, s.Joined, s.Clients, s.ConnectSeconds, s.Posts, s.Receipts, s.Expected, fmtMs(s.Delivery.P50),
			fmtMs(s.Delivery.P90), fmtMs(s.Delivery.P99), fmtMs(s.Delivery.Max), s.AllReceived)
	default:
		fmt.Fprintf(w, "%-16s c=%-5d %9.0f ops/s %9.0f req/s  p50 %s  p90 %s  p99 %s  max %s  errors %d  5xx %d\n",
			name, r.Concurrency, r.OpsPerSec, r.ReqPerSec, fmtMs(r.Latency.P50), fmtMs(r.Latency.P90),
			fmtMs(r.Latency.P99), fmtMs(r.Latency.Max), r.ErrorCount(), r.Status5xx)
	}
	if r.Rate > 0 && r.Lag != nil {
		fmt.Fprintf(w, "  open loop at %s/s, latency from each operation's scheduled start; sent late by p50 %s p99 %s max %s\n",
			fmtRate(r.Rate), fmtMs(r.Lag.P50), fmtMs(r.Lag.P99), fmtMs(r.Lag.Max))
	}
	if r.Peak != nil {
		fmt.Fprintf(w, "  peak RSS %s, goroutines %s; CPU cores server / tool / rest / steal: %s (machine busy before: %s)\n",
			fmtBytes(peakRSS(r.Peak)), goroutinesCell(r.Peak), cpuCell(r.CPU), beforeCell(r.CPU))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
		fmt.Fprintf(w, "  error %-60s %d\n", k, r.Errors[k])
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  check %-34s %-4s %s\n", c.Name, okWord(c.OK), c.Detail)
	}
}

// cpuCell writes the cores used by the server, by the tool, by the rest
// of the machine (PostgreSQL, Redis, node, anyone else) and stolen by the
// hypervisor.
func cpuCell(u *CPUUse) string {
	if u == nil {
		return "n/a"
	}
	if u.Server < 0 {
		return fmt.Sprintf("? / %.2f / %.2f / %.2f", u.Tool, u.Busy-u.Tool, u.Steal)
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f / %.2f", u.Server, u.Tool, max(0, u.Busy-u.Server-u.Tool), u.Steal)
}

// beforeCell writes how busy the machine was just before the run.
func beforeCell(u *CPUUse) string {
	if u == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", u.Before)
}

// peakRSS is the best peak resident set known: the kernel's high-water
// mark when it was read, else the highest scraped value.
func peakRSS(p *Peak) int64 { return max(p.HWM, p.RSS) }

// okWord writes a check's outcome.
func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// fmtMs writes milliseconds with a precision that suits their size.
func fmtMs(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// fmtBytes writes a size in MiB.
func fmtBytes(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// fmtRate writes a rate with thousands separators.
func fmtRate(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	if v < 100 {
		s = fmt.Sprintf("%.1f", v)
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
