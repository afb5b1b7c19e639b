package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wrkScript is the Lua script wrk runs: each request carries the next of
// the users' access tokens in turn (none without tokens), as the virtual
// users of a closed loop each hold one, and the summary is written as one
// JSON line after wrkMarker, followed by wrk's latency histogram, one
// "wrkMarker h <µs> <count>" line per distinct value, so that slices merge
// exactly. The verbs are the tokens, as Lua strings, and the path.
const wrkScript = `-- written by the load tool; removed after the run
local tokens = {%s}
local reqs = {}
local n = 0
init = function(args)
  if #tokens == 0 then
    reqs[1] = wrk.format("GET", %[2]s)
  end
  for i, t in ipairs(tokens) do
    reqs[i] = wrk.format("GET", %[2]s, {["Authorization"] = "jwt-user " .. t})
  end
end
request = function()
  n = n %% #reqs + 1
  return reqs[n]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('` + wrkMarker + `{"requests":%%d,"durationUs":%%d,"connect":%%d,"read":%%d,"write":%%d,' ..
    '"status":%%d,"timeout":%%d}\n', summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout))
  for i = 1, #latency do
    local us, count = latency(i)
    io.write(string.format('` + wrkMarker + `h %%d %%d\n', us, count))
  end
end
`

// wrkMarker starts the lines the script writes.
const wrkMarker = "actionkit-wrk "

// wrkSummary is what the script's done() reports.
type wrkSummary struct {
	Requests   int64 `json:"requests"`
	DurationUs int64 `json:"durationUs"`
	Connect    int64 `json:"connect"`
	Read       int64 `json:"read"`
	Write      int64 `json:"write"`
	Status     int64 `json:"status"` // answers with a status of 400 or more
	Timeout    int64 `json:"timeout"`
	// buckets is wrk's histogram as it reports it: latency in µs and
	// count, by increasing latency.
	buckets [][2]int64
}

// wrkLuaScript returns the script for tokens (none: no Authorization) and
// path.
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

// parseWrk finds the script's summary and histogram in wrk's output.
func parseWrk(out []byte) (wrkSummary, error) {
	s, err := scanWrk(out)
	if err == nil && len(s.buckets) > 0 && !slices.IsSortedFunc(s.buckets, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) }) {
		err = errors.New("wrk histogram out of order")
	}
	return s, err
}

// scanWrk reads the script's lines in wrk's output.
func scanWrk(out []byte) (wrkSummary, error) {
	var s wrkSummary
	found := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), wrkMarker)
		if !ok {
			continue
		}
		if hist, ok := strings.CutPrefix(line, "h "); ok {
			if err := s.addBucket(hist); err != nil {
				return s, err
			}
			continue
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return s, fmt.Errorf("wrk summary %q: %w", line, err)
		}
		if s.DurationUs <= 0 {
			return s, fmt.Errorf("wrk summary %q: no duration", line)
		}
		found = true
	}
	if !found {
		return s, fmt.Errorf("no summary in wrk's output: %q", lastLines(out, 5))
	}
	return s, nil
}

// addBucket adds one histogram line, "<µs> <count>".
func (s *wrkSummary) addBucket(line string) error {
	us, count, _ := strings.Cut(line, " ")
	v, err1 := strconv.ParseInt(us, 10, 64)
	n, err2 := strconv.ParseInt(count, 10, 64)
	if err1 != nil || err2 != nil || v < 0 || n < 0 || n > 1<<30 {
		return fmt.Errorf("wrk histogram line %q", line)
	}
	s.buckets = append(s.buckets, [2]int64{v, n})
	return nil
}

// uncorrect undoes wrk's correction for coordinated omission, which it
// applies to its histogram before it reports it: for every latency n of at
// least twice the expected interval e (the run's time over the requests
// each of the conns connections completed), wrk adds the samples n-e,
// n-2e, ... down to just above e, requests a connection would have sent
// had it not waited on a slow answer. Those requests were never sent: a
// closed loop's latency is each answer's own, as this tool's client
// measures it, so they are taken out again. From the longest latency down,
// a bucket m above e holds its own count plus the counts of every longer
// bucket m + k·e, already known; acc sums those by m mod e.
func uncorrect(buckets [][2]int64, durationUs, requests int64, conns int) [][2]int64 {
	perConn := requests / int64(max(conns, 1))
	if perConn <= 0 || durationUs/perConn <= 0 {
		return buckets // wrk corrected nothing
	}
	e := durationUs / perConn
	acc := map[int64]int64{}
	out := make([][2]int64, 0, len(buckets))
	for _, b := range slices.Backward(buckets) {
		m, n := b[0], b[1]
		if m > e {
			n -= acc[m%e]
			acc[m%e] += n
		}
		if n > 0 {
			out = append(out, [2]int64{m, n})
		}
	}
	slices.Reverse(out)
	return out
}

// lastLines returns the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// measured turns a wrk summary of a run over conns connections into what
// the run measured, its failures named by kind. wrk tells only that a
// status was 400 or more, so those answers also count as 5xx: an upper
// bound, never a miss.
func (s wrkSummary) measured(kind string, conns int) measured {
	rec := newRecorder()
	for _, b := range uncorrect(s.buckets, s.DurationUs, s.Requests, conns) {
		for range b[1] {
			rec.ops = append(rec.ops, time.Duration(b[0])*time.Microsecond)
		}
	}
	rec.requests, rec.fivexx = s.Requests, s.Status
	for k, v := range map[string]int64{"status 400 or more": s.Status, "connect": s.Connect, "read": s.Read, "write": s.Write, "timeout": s.Timeout} {
		if v > 0 {
			rec.errors[fmt.Sprintf("wrk: %s (%s)", k, kind)] = v
			rec.failed += v
		}
	}
	return measured{elapsed: time.Duration(s.DurationUs) * time.Microsecond, rec: rec}
}

// wrkRunner runs wrk against one GET path of one server, with the script
// giving each request the next of c users' tokens (or none).
type wrkRunner struct {
	path, script, url string
	c                 int
}

// newWrkRunner finds wrk and writes the script for path on t, with the
// tokens of the first c users of t's pool when auth is set; close removes
// the script.
func newWrkRunner(ctx context.Context, wrk string, t *target, path string, auth bool, c int) (*wrkRunner, error) {
	bin, err := exec.LookPath(wrk)
	if err != nil {
		return nil, fmt.Errorf("%w (Debian: apt-get install wrk; make bench installs it)", err)
	}
	var tokens []string
	if auth {
		users, err := t.pool.ensure(ctx, c)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			tokens = append(tokens, u.Access)
		}
	}
	script, err := writeTemp("actionkit-wrk-*.lua", wrkLuaScript(tokens, path))
	if err != nil {
		return nil, err
	}
	return &wrkRunner{path: bin, script: script, url: t.base + path, c: c}, nil
}

// close removes the script.
func (w *wrkRunner) close() { os.Remove(w.script) }

// run runs wrk once for d in whole seconds (at least one), with c
// connections over as many threads as there are cores (at most c). It
// returns wrk's summary and the CPU time wrk used.
func (w *wrkRunner) run(ctx context.Context, d time.Duration) (wrkSummary, time.Duration, error) {
	cmd := exec.CommandContext(ctx, w.path, "-t", strconv.Itoa(min(runtime.NumCPU(), w.c)), "-c", strconv.Itoa(w.c),
		"-d", strconv.Itoa(int(wholeSeconds(d)/time.Second))+"s", "--timeout", "30s", "-s", w.script, w.url)
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

// wholeSeconds is d in whole seconds, wrk's unit, and at least one.
func wholeSeconds(d time.Duration) time.Duration { return max(time.Second, d.Truncate(time.Second)) }

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
