package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wrkScript is the Lua script wrk runs: each request carries the next of
// the users' access tokens in turn, as the read scenario's virtual users
// do, and the summary is written as one JSON line after wrkMarker. The
// verbs are the tokens, as Lua strings, and the path.
const wrkScript = `-- written by load bench; removed after the run
local tokens = {%s}
local reqs = {}
local n = 0
init = function(args)
  for i, t in ipairs(tokens) do
    reqs[i] = wrk.format("GET", %s, {["Authorization"] = "jwt-user " .. t})
  end
end
request = function()
  n = n %% #reqs + 1
  return reqs[n]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('` + wrkMarker + `{"requests":%%d,"durationUs":%%d,"connect":%%d,"read":%%d,"write":%%d,' ..
    '"status":%%d,"timeout":%%d,"minUs":%%d,"meanUs":%%.1f,"p50Us":%%d,"p90Us":%%d,"p99Us":%%d,"maxUs":%%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`

// wrkMarker starts the summary line the script writes.
const wrkMarker = "actionkit-wrk "

// wrkSummary is what the script's done() reports; times in microseconds.
type wrkSummary struct {
	Requests   int64   `json:"requests"`
	DurationUs int64   `json:"durationUs"`
	Connect    int64   `json:"connect"`
	Read       int64   `json:"read"`
	Write      int64   `json:"write"`
	Status     int64   `json:"status"` // answers with a status of 400 or more
	Timeout    int64   `json:"timeout"`
	MinUs      float64 `json:"minUs"`
	MeanUs     float64 `json:"meanUs"`
	P50Us      float64 `json:"p50Us"`
	P90Us      float64 `json:"p90Us"`
	P99Us      float64 `json:"p99Us"`
	MaxUs      float64 `json:"maxUs"`
}

// wrkLuaScript returns the script for tokens and path.
func wrkLuaScript(tokens []string, path string) string {
	quoted := make([]string, len(tokens))
	for i, t := range tokens {
		quoted[i] = luaString(t)
	}
	return fmt.Sprintf(wrkScript, strings.Join(quoted, ", "), luaString(path))
}

// luaString writes s as a Lua string literal: printable ASCII as is but
// quotes and backslashes, every other byte as a decimal escape.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := range len(s) {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// parseWrk finds the script's summary line in wrk's output.
func parseWrk(out []byte) (wrkSummary, error) {
	var s wrkSummary
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), wrkMarker); ok {
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				return s, fmt.Errorf("wrk summary %q: %w", line, err)
			}
			if s.DurationUs <= 0 {
				return s, fmt.Errorf("wrk summary %q: no duration", line)
			}
			return s, nil
		}
	}
	return s, fmt.Errorf("no summary in wrk's output: %q", lastLines(out, 5))
}

// lastLines returns the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// result turns a wrk summary into a result of the read scenario.
func (s wrkSummary) result(c int) *Result {
	secs := float64(s.DurationUs) / 1e6
	r := &Result{Kind: "run", Scenario: "read", Target: "server", Series: "wrk", Tool: "wrk", Concurrency: c, Seconds: secs,
		Ops: s.Requests, Requests: s.Requests, OpsPerSec: float64(s.Requests) / secs, ReqPerSec: float64(s.Requests) / secs,
		Latency: Latency{Count: int(s.Requests), Min: s.MinUs / 1000, Mean: s.MeanUs / 1000, P50: s.P50Us / 1000,
			P90: s.P90Us / 1000, P99: s.P99Us / 1000, Max: s.MaxUs / 1000}}
	errs := map[string]int64{}
	for k, v := range map[string]int64{"wrk: status 400 or more (read)": s.Status, "wrk: connect (read)": s.Connect,
		"wrk: read (read)": s.Read, "wrk: write (read)": s.Write, "wrk: timeout (read)": s.Timeout} {
		if v > 0 {
			errs[k] = v
		}
	}
	if len(errs) > 0 {
		r.Errors = errs
	}
	r.Failed = r.ErrorCount()
	return r
}

// wrkRunner runs wrk against the read of one server, with the script
// giving each request the next of c users' tokens.
type wrkRunner struct {
	path, script, url string
	c                 int
}

// newWrkRunner finds wrk and writes the script for the tokens of the first
// c users of t's pool; close removes the script.
func newWrkRunner(ctx context.Context, wrk string, t *target, c int) (*wrkRunner, error) {
	path, err := exec.LookPath(wrk)
	if err != nil {
		return nil, fmt.Errorf("%w (Debian: apt-get install wrk; make bench installs it)", err)
	}
	users, err := t.pool.ensure(ctx, c)
	if err != nil {
		return nil, err
	}
	tokens := make([]string, len(users))
	for i, u := range users {
		tokens[i] = u.Access
	}
	script, err := writeTemp("actionkit-wrk-*.lua", wrkLuaScript(tokens, "/v1/users/read"))
	if err != nil {
		return nil, err
	}
	return &wrkRunner{path: path, script: script, url: t.base + "/v1/users/read", c: c}, nil
}

// close removes the script.
func (w *wrkRunner) close() { os.Remove(w.script) }

// run runs wrk once for d in whole seconds (at least one), with c
// connections over as many threads as there are cores (at most c). It
// returns wrk's summary and the CPU time wrk used.
func (w *wrkRunner) run(ctx context.Context, d time.Duration) (wrkSummary, time.Duration, error) {
	secs := max(1, int(d/time.Second))
	cmd := exec.CommandContext(ctx, w.path, "-t", strconv.Itoa(min(runtime.NumCPU(), w.c)), "-c", strconv.Itoa(w.c),
		"-d", strconv.Itoa(secs)+"s", "--timeout", "30s", "-s", w.script, w.url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkSummary{}, 0, fmt.Errorf("wrk: %w: %s", err, lastLines(out, 5))
	}
	var used time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		used = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	s, err := parseWrk(out)
	return s, used, err
}

// merge adds the summary of another run of wrk. Counts and durations add
// up and the extremes are kept; the mean and the percentiles are averaged,
// weighted by the requests of each run: an approximation, since wrk reports
// no histogram.
func (s *wrkSummary) merge(o wrkSummary) {
	n, m := float64(s.Requests), float64(o.Requests)
	if n+m > 0 {
		avg := func(a, b float64) float64 { return (a*n + b*m) / (n + m) }
		s.MeanUs, s.P50Us, s.P90Us, s.P99Us = avg(s.MeanUs, o.MeanUs), avg(s.P50Us, o.P50Us), avg(s.P90Us, o.P90Us), avg(s.P99Us, o.P99Us)
	}
	if s.Requests == 0 || o.MinUs < s.MinUs {
		s.MinUs = o.MinUs
	}
	s.MaxUs = max(s.MaxUs, o.MaxUs)
	s.Requests += o.Requests
	s.DurationUs += o.DurationUs
	s.Connect += o.Connect
	s.Read += o.Read
	s.Write += o.Write
	s.Status += o.Status
	s.Timeout += o.Timeout
}

// writeTemp writes text to a new temporary file named after pattern and
// returns its path.
func writeTemp(pattern, text string) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", errors.Join(err, errors.New("writing the wrk script"))
	}
	return f.Name(), nil
}

// compareWithWrk measures the read at concurrency c on t by this tool and
// by wrk in alternating slices (tool, wrk, then wrk, tool, ...), n of each,
// run.Duration / n long in whole seconds (wrk's unit), this tool's
// connections kept open between its slices: a drift of the machine's
// speed then slows both alike. It returns this tool's result and wrk's.
func compareWithWrk(ctx context.Context, wrk string, t *target, c int, run runConfig, n int) (*Result, *Result, error) {
	wr, err := newWrkRunner(ctx, wrk, t, c)
	if err != nil {
		return nil, nil, err
	}
	defer wr.close()
	tool := &side{series: "wrk", t: t}
	defer tool.close()
	if err := tool.prepare(ctx, c, run.Warmup); err != nil {
		return nil, nil, err
	}
	slice := wrkSliceLength(run.Duration, n)
	cfg := runConfig{Duration: slice, MaxOps: max(1, run.MaxOps/int64(n))}
	var sum wrkSummary
	var cpu cpuSum
	started := time.Now()
	before := machineBusy(time.Second)
	steps := []func() error{
		func() error { tool.measure(ctx, cfg); return ctx.Err() },
		func() error { return wrkSlice(ctx, wr, t.pid, slice, &sum, &cpu) },
	}
	for i := range n {
		first, second := steps[0], steps[1]
		if i%2 == 1 {
			first, second = second, first
		}
		if err := errors.Join(first(), second()); err != nil {
			return nil, nil, err
		}
	}
	w := sum.result(c)
	w.Started, w.CPU = started, cpu.mean(before)
	return tool.result(c, before), w, nil
}

// wrkSliceLength is d / n in whole seconds, wrk's unit, and at least one.
func wrkSliceLength(d time.Duration, n int) time.Duration {
	return max(time.Second, (d / time.Duration(max(n, 1))).Truncate(time.Second))
}

// wrkSlice runs wrk once for d and adds its summary to sum and its use of
// the cores to cpu, wrk's own CPU as the tool's.
func wrkSlice(ctx context.Context, wr *wrkRunner, pid int, d time.Duration, sum *wrkSummary, cpu *cpuSum) error {
	a := takeCPU(pid)
	s, used, err := wr.run(ctx, d)
	b := takeCPU(pid)
	if err != nil {
		return err
	}
	u, wall := cpuBetween(a, b, runtime.NumCPU()), b.at.Sub(a.at).Seconds()
	if wall > 0 {
		u.Tool = used.Seconds() / wall
	}
	cpu.add(u, wall)
	sum.merge(s)
	return nil
}
