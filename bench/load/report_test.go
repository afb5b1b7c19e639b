package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	got := table([]string{"a", "b"}, [][]string{{"1", "x|y"}, {"2", ""}})
	want := "| a | b |\n|---|---|\n| 1 | x\\|y |\n| 2 |  |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtRate(12345.6), "12,346"},
		{fmtRate(1234567), "1,234,567"},
		{fmtRate(999), "999"},
		{fmtRate(42.25), "42.2"},
		{fmtMs(0.1234), "0.12 ms"},
		{fmtMs(12.34), "12.3 ms"},
		{fmtMs(123.4), "123 ms"},
		{fmtMs(-12.34), "-12.3 ms"},
		{fmtBytes(64 << 20), "64.0 MiB"},
		{fmtWall(372), "6 min 12 s"},
		{cpuCell(&CPUUse{Server: 1.2, Tool: 0.3, Busy: 1.9, Steal: 0.05}), "1.20 / 0.30 / 0.40 / 0.05"},
		{cpuCell(nil), "n/a"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// sampleRuns is a small bench: baselines, a read run, a refresh run with
// a failed check, a login run and a sockets run.
func sampleRuns() (*Meta, []*Result) {
	meta := &Meta{Kind: "meta", Date: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), Command: "make bench",
		Machine: Machine{CPUs: 2, CPUModel: "Test CPU", MemTotal: 24 << 30, Kernel: "Linux 6.1", Go: "go1.26.8"},
		Idle:    Idle{RSS: 40 << 20, VmRSS: 41 << 20, Goroutines: 30}, Argon: ArgonBound{PerSec: 90, HashMs: 22, Workers: 2},
		Mix: "80% read, 20% publish", Duration: "10s", BaseDuration: "5s", Warmup: "1s", Posts: 20, Interval: "250ms",
		WallSeconds: 372, LimiterSlices: 10, WrkSlices: 5, OpenShare: 0.7, AlgSlices: 10}
	lat := Latency{Count: 10, P50: 1, P90: 2, P99: 5, Max: 9}
	runs := []*Result{
		{Kind: "run", Scenario: "bare", Target: "baseline", Concurrency: 64, ReqPerSec: 40000, OpsPerSec: 40000, Latency: lat},
		{Kind: "run", Scenario: "pk", Target: "baseline", Concurrency: 64, ReqPerSec: 10000, OpsPerSec: 10000, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Concurrency: 64, ReqPerSec: 8000, OpsPerSec: 8000, Latency: lat,
			Peak: &Peak{RSS: 80 << 20, HWM: 90 << 20, StartRSS: 70 << 20, HeapInuse: 60 << 20, Goroutines: 150, Samples: 40}, CPU: &CPUUse{Server: 1.2, Tool: 0.5, Busy: 2}},
		{Kind: "run", Scenario: "refresh", Target: "server", Concurrency: 16, OpsPerSec: 2000, ReqPerSec: 2000, Latency: lat,
			Errors: map[string]int64{"401 USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN (refresh)": 2},
			Checks: []Check{{Name: "one live session per user", OK: false, Detail: "15 of 16"}}},
		{Kind: "run", Scenario: "login", Target: "server", Concurrency: 64, OpsPerSec: 85, ReqPerSec: 85, Latency: lat,
			Peak: &Peak{RSS: 200 << 20, Samples: 4}},
		{Kind: "run", Scenario: "mfalogin", Target: "server", Concurrency: 64, OpsPerSec: 80, ReqPerSec: 160, Latency: lat,
			Kinds:  map[string]Latency{"login": {Count: 800, P50: 700, P90: 800, P99: 900, Max: 950}, "verify": {Count: 800, P50: 3, P90: 5, P99: 8, Max: 12}},
			Checks: []Check{{Name: "the second step hashes no password", OK: true, Detail: "880 password hashes on the server for 880 first steps (password) and 880 second steps (TOTP)"}}},
		{Kind: "run", Scenario: "publish", Target: "server", Concurrency: 16, Error: "prepare: boom"},
		{Kind: "run", Scenario: "read", Target: "server", Series: "wrk", Concurrency: 64, ReqPerSec: 8200, OpsPerSec: 8200, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "wrk", Tool: "wrk", Concurrency: 64, ReqPerSec: 8500, OpsPerSec: 8500, Latency: lat,
			CPU: &CPUUse{Server: 1.3, Tool: 0.3, Busy: 1.9}},
		{Kind: "run", Scenario: "read", Target: "server", Series: "open", Concurrency: 64, Rate: 5600, ReqPerSec: 5590, OpsPerSec: 5590, Latency: lat,
			Lag: &Latency{P50: 0.05, P99: 1.2, Max: 3}},
		{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: "off", Concurrency: 64, ReqPerSec: 8200, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: "on", Concurrency: 64, ReqPerSec: 8000, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: "on", Concurrency: 64, ReqPerSec: 7900, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "limiter", Limiter: "off", Concurrency: 64, ReqPerSec: 8300, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "alg", Alg: "HS256", Concurrency: 64, ReqPerSec: 8100, Latency: lat},
		{Kind: "run", Scenario: "read", Target: "server", Series: "alg", Alg: "EdDSA", Concurrency: 64, ReqPerSec: 7700, Latency: lat},
		{Kind: "run", Scenario: "sockets", Target: "server", Concurrency: 2000, Peak: &Peak{RSS: 300 << 20, Samples: 4},
			Sockets: &SocketStats{Clients: 2000, Joined: 2000, Posts: 20, Receipts: 40000, Expected: 40000, ClientsWithAll: 2000,
				AllReceived: true, Delivery: Latency{P50: 50, P90: 100, P99: 200, Max: 300}}},
	}
	return meta, runs
}

func TestRenderMarkdown(t *testing.T) {
	meta, runs := sampleRuns()
	md := renderMarkdown(meta, runs)
	for _, want := range []string{
		"# Benchmarks",
		"Generated by `make bench` on 2026-11-22 03:00 UTC; the whole command took 6 min 12 s",
		"| CPU | 2 × Test CPU |",
		"**40.0 MiB** resident",
		"| pk | 64 | 10,000 |",
		"| 64 | 8,000 | 8,000 | 1.00 ms | 2.00 ms | 5.00 ms | 9.00 ms | 0 | 0 | 90.0 MiB (from 70) | 60.0 MiB | 150 | 1.20 / 0.50 / 0.30 / 0.00 | 0.00 | 20% | 80% |",
		"| read at 64: ≥ 10,000 req/s | 8,000 req/s | **no** |",
		"| read at 64, limiter on: ≥ 90% of the JWT + primary-key baseline (pk) | 80% (8,000 vs 10,000 req/s; of bare: 20%) | **no** |",
		"| read at 64, limiter on: p99 ≤ 1.5 × pk's p99 | 1.00 × (5.00 ms vs 5.00 ms) | yes |",
		"| read, limiter on / off ≥ 0.95 | 0.96 (7,950 vs 8,250 req/s) | yes |",
		"| read at 64: this tool's figure within 10% of wrk's | 0.96 (8,200 vs 8,500 req/s in alternating slices, this tool's own client against wrk) | yes |",
		"## read: cross-checks",
		"| read at 64 with EdDSA tokens: ≥ 90% of HS256 | 0.95 (7,700 vs 8,100 req/s on one server in alternating slices) | yes |",
		"### HS256 and EdDSA access tokens",
		"| EdDSA | 64 | 7,700 |",
		"**EdDSA / HS256: 0.95** (7,700 vs 8,100 req/s; target ≥ 0.90: yes).",
		"in alternating slices (5 of each, 2s long)",
		"| wrk, the plan's run above | 64 | 8,000 |",
		"| this tool, alternating with wrk | 64 | 8,200 |",
		"| wrk, alternating with this tool | 64 | 8,500 | 1.00 ms | 2.00 ms | 5.00 ms | 9.00 ms | 0 | 1.30 / 0.30 / 0.30 / 0.00 | 0.00 |",
		"**This tool / wrk, alternating: 0.96** (agreement within 10%: yes). The plan's read at 64 (wrk, one run) / wrk in the slices: 0.94.",
		"| off | 64 | 8,300 |",
		"**Limiter on / off: 0.96** (7,950 vs 8,250 req/s; target ≥ 0.95: yes).",
		"alternating slices (off, on, then on, off, ...), 10 slices of 1s of each",
		"| 5,600 | 64 | 5,590 | 1.00 ms | 2.00 ms | 5.00 ms | 9.00 ms | 0 | 0.05 ms / 1.20 ms / 3.00 ms | n/a | n/a |",
		"| refresh: zero errors, no lost or forked chain | 2 errors; checks FAIL | **no** |",
		"- c=16: one live session per user: **FAIL** (15 of 16)",
		"| login at 64: ≥ 90% of the Argon2id bound | 94% (85.0/s of 90.0) | yes |",
		"| login with TOTP at 64: the second step hashes no password | 880 password hashes on the server for 880 first steps (password) and 880 second steps (TOTP) | yes |",
		"| steps | concurrency | ops/s |",
		"| password | 64 | 85.0 | 85.0 |",
		"| password + TOTP | 64 | 80.0 | 160 | 1.00 ms |",
		"| 89% |",
		"At 64: 80.0 logins a second in two steps, 0.94 × the one-step login's 85.0.",
		"| 64 | verify | 800 | 3.00 ms | 5.00 ms | 8.00 ms | 12.0 ms |",
		"- c=64 with TOTP: the second step hashes no password: **ok** (880 password hashes",
		"| publish | not measured | **no** |",
		"- c=16: not measured: prepare: boom",
		"| sockets at 2,000: delivery p99 ≤ 250 ms | 200 ms | yes |",
		"| idle RSS < 60 MiB | 41.0 MiB | yes |",
		"- server refresh c=16: 2 × `401 USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN (refresh)`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// The runs beside the plan stay out of the read table.
	if n := strings.Count(md, "| 64 | 8,000 | 8,000 |"); n != 1 {
		t.Errorf("the plan's read row appears %d times, want once", n)
	}
	for _, unwanted := range []string{"| 64 | 7,700 | 7,700 |", "| 64 | 8,500 | 8,500 |", "| 64 | 8,200 | 8,200 |", "| 64 | 0.0 | 8,300 |", "| 64 | 5,590 | 5,590 |"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report holds %q: a cross-check run in the read table", unwanted)
		}
	}
}

func TestCrossCheckRatios(t *testing.T) {
	run := func(series, limiter string, rps float64, errText string) *Result {
		return &Result{Scenario: "read", Target: "server", Series: series, Limiter: limiter, ReqPerSec: rps, Error: errText}
	}
	if _, _, _, ok := limiterRatio([]*Result{run("limiter", "on", 100, "")}); ok {
		t.Error("limiterRatio without a run with the limiter off: ok, want not")
	}
	if _, _, _, ok := limiterRatio([]*Result{run("limiter", "on", 100, ""), run("limiter", "off", 100, "cut short")}); ok {
		t.Error("limiterRatio with the only off run failed: ok, want not")
	}
	q, on, off, ok := limiterRatio([]*Result{run("", "", 500, ""), run("limiter", "off", 100, ""), run("limiter", "on", 90, ""),
		run("limiter", "on", 96, ""), run("limiter", "off", 100, "")})
	if !ok || on != 93 || off != 100 || q != 0.93 {
		t.Errorf("limiterRatio = %v, %v, %v, %v; want 0.93, 93, 100, true (the plan's run left out)", q, on, off, ok)
	}
	if q, ok := toolOverWrk(run("", "", 90, ""), run("wrk", "", 100, "")); !ok || q != 0.9 {
		t.Errorf("toolOverWrk = %v, %v; want 0.9, true", q, ok)
	}
	for _, pair := range [][2]*Result{{nil, run("wrk", "", 100, "")}, {run("", "", 90, ""), run("wrk", "", 0, "wrk: not found")}} {
		if _, ok := toolOverWrk(pair[0], pair[1]); ok {
			t.Errorf("toolOverWrk(%v, %v): ok, want not", pair[0], pair[1])
		}
	}
	for q, want := range map[float64]bool{0.9: true, 1.1: true, 1: true, 0.89: false, 1.11: false} {
		if agrees(q) != want {
			t.Errorf("agrees(%v) = %v", q, !want)
		}
	}
	base := &Result{Scenario: "session", Target: "baseline", Series: "session", ReqPerSec: 200}
	if _, _, _, ok := sessionRatio([]*Result{run("", "", 500, ""), base}); ok {
		t.Error("sessionRatio without the server's side: ok, want not")
	}
	if q, server, b, ok := sessionRatio([]*Result{run("", "", 500, ""), run("session", "", 180, ""), base}); !ok || q != 0.9 || server != 180 || b != 200 {
		t.Errorf("sessionRatio = %v, %v, %v, %v; want 0.9, 180, 200, true (the plan's run left out)", q, server, b, ok)
	}
	alg := func(name string, rps float64, errText string) *Result {
		return &Result{Scenario: "read", Target: "server", Series: "alg", Alg: name, ReqPerSec: rps, Error: errText}
	}
	if _, _, _, ok := algRatio([]*Result{alg("HS256", 100, ""), alg("EdDSA", 90, "cut short")}); ok {
		t.Error("algRatio with the EdDSA side failed: ok, want not")
	}
	if q, hs, ed, ok := algRatio([]*Result{run("", "", 500, ""), alg("EdDSA", 45, ""), alg("HS256", 50, "")}); !ok || q != 0.9 || hs != 50 || ed != 45 {
		t.Errorf("algRatio = %v, %v, %v, %v; want 0.9, 50, 45, true (the plan's run left out)", q, hs, ed, ok)
	}
}

func TestReportWithoutCrossChecks(t *testing.T) {
	meta, runs := sampleRuns()
	var plan []*Result
	for _, r := range runs {
		if r.Series == "" {
			plan = append(plan, r)
		}
	}
	plan = append(plan, &Result{Kind: "run", Scenario: "read", Target: "server", Series: "wrk", Tool: "wrk", Concurrency: 64,
		Error: "exec: \"wrk\": executable file not found in $PATH"})
	md := renderMarkdown(meta, plan)
	for _, want := range []string{
		"| read, limiter on / off ≥ 0.95 | not measured | **no** |",
		"| read at 64: this tool's figure within 10% of wrk's | not measured | **no** |",
		"- (wrk) c=64: not measured: exec: \"wrk\"",
		"- server read (wrk) c=64: not measured",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "### The read in an open loop") {
		t.Error("an open-loop section without an open-loop run")
	}
}

func TestResultsRoundTrip(t *testing.T) {
	meta, runs := sampleRuns()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	for _, r := range runs {
		if err := appendJSONLine(path, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := readResults(path); err == nil {
		t.Error("got nil error for results without a meta line, want one")
	}
	if err := appendJSONLine(path, meta); err != nil {
		t.Fatal(err)
	}
	gotMeta, gotRuns, err := readResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := renderMarkdown(gotMeta, gotRuns), renderMarkdown(meta, runs); a != b {
		t.Errorf("the report of the read-back results differs:\n%s\nwant\n%s", a, b)
	}
	out := filepath.Join(t.TempDir(), "BENCH.md")
	if err := reportMain([]string{"-in", path, "-out", out}); err != nil {
		t.Fatal(err)
	}
	if raw, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(raw), "# Benchmarks") {
		t.Errorf("report file: %v %.40q", err, raw)
	}
}

func TestReportKeepsTheHandKeptPart(t *testing.T) {
	kept := handKept + "\n\nfigures by hand\n"
	if got := withHandKept("# Benchmarks\n\nnew\n", "# Benchmarks\n\nold\n\n"+kept); got != "# Benchmarks\n\nnew\n\n"+kept {
		t.Errorf("withHandKept = %q", got)
	}
	if got := withHandKept("new\n", "old\n"); got != "new\n" {
		t.Errorf("withHandKept without the part = %q", got)
	}
	if got := withHandKept("new\n", "old, not a heading: "+kept); got != "new\n" {
		t.Errorf("withHandKept with the heading inside a line = %q", got)
	}
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	if err := writeReport(path, "first\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("first\n\n"+kept), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(path, "second\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second\n\n"+kept {
		t.Errorf("written %q", b)
	}
}
