package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// wrkOutput is wrk 4.1's output with the bench script's summary line and
// histogram.
const wrkOutput = `Running 10s test @ http://127.0.0.1:40111/v1/users/read
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.35ms    1.60ms  18.55ms   71.34%
    Req/Sec    14.27k     1.02k   16.50k    69.50%
  284012 requests in 10.00s, 190.06MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  28399.19
Transfer/sec:     19.00MB
actionkit-wrk {"requests":284012,"durationUs":10000795,"connect":0,"read":1,"write":0,"status":3,"timeout":2}
actionkit-wrk h 61 1
actionkit-wrk h 2010 97
actionkit-wrk h 18550 2
`

func TestParseWrk(t *testing.T) {
	s, err := parseWrk([]byte(wrkOutput))
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{}
	fill(r, s.measured("read", 64))
	if r.Requests != 284012 || r.Seconds < 10.0007 || r.Seconds > 10.0008 || int(r.ReqPerSec) != 28398 {
		t.Errorf("requests %d in %vs, %v req/s; want 284012 in 10.000795 s, 28,398/s", r.Requests, r.Seconds, r.ReqPerSec)
	}
	if r.Latency.Count != 100 || r.Latency.Min != 0.061 || r.Latency.P50 != 2.01 || r.Latency.Max != 18.55 {
		t.Errorf("latency %+v, want 100 answers from 61 µs to 18.55 ms, most at 2.01 ms", r.Latency)
	}
	want := map[string]int64{"wrk: status 400 or more (read)": 3, "wrk: read (read)": 1, "wrk: timeout (read)": 2}
	if len(r.Errors) != len(want) || r.Failed != 6 || r.Status5xx != 3 {
		t.Errorf("errors %v (%d failed, %d 5xx), want %v, 6 failed and the 3 statuses counted as 5xx", r.Errors, r.Failed, r.Status5xx, want)
	}
	for k, v := range want {
		if r.Errors[k] != v {
			t.Errorf("errors[%q] = %d, want %d", k, r.Errors[k], v)
		}
	}
	for _, bad := range []string{
		"Requests/sec:  28399.19\n",                         // no summary: a wrk without the script
		"actionkit-wrk {\"requests\":1,\"durationUs\":0}\n", // no duration
		"actionkit-wrk {not json}\n",
		"actionkit-wrk {\"requests\":1,\"durationUs\":9}\nactionkit-wrk h 12 x\n",
	} {
		if _, err := parseWrk([]byte(bad)); err == nil {
			t.Errorf("parseWrk(%q): nil error", bad)
		}
	}
}

// correct is wrk's correction for coordinated omission (stats_correct in
// its stats.c), written again here as the model uncorrect must invert: for
// each latency n from 2e up, its count is added at n-e, n-2e, ... while
// above e.
func correct(hist map[int64]int64, e int64) {
	var top int64
	for n := range hist {
		top = max(top, n)
	}
	for n := 2 * e; n <= top; n++ {
		count := hist[n]
		for m := n - e; count > 0 && m > e; m -= e {
			hist[m] += count
		}
	}
}

// TestUncorrect: a closed loop's histogram with slow answers, corrected as
// wrk does, comes back as it was.
func TestUncorrect(t *testing.T) {
	raw := map[int64]int64{40: 500, 100: 300, 101: 7, 250: 20, 251: 2, 1000: 3, 5003: 1}
	var requests int64
	for _, n := range raw {
		requests += n
	}
	const conns, durationUs = 4, 20_800 // e = 20,800 / (833 / 4 = 208) = 100 µs
	corrected := map[int64]int64{}
	for k, v := range raw {
		corrected[k] = v
	}
	correct(corrected, 100)
	var buckets [][2]int64
	var total int64
	for n := range int64(5004) {
		if c := corrected[n]; c > 0 {
			buckets = append(buckets, [2]int64{n, c})
			total += c
		}
	}
	if total <= requests {
		t.Fatalf("the model added nothing: %d samples for %d requests", total, requests)
	}
	got := uncorrect(buckets, durationUs, requests, conns)
	want := [][2]int64{{40, 500}, {100, 300}, {101, 7}, {250, 20}, {251, 2}, {1000, 3}, {5003, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uncorrect = %v, want %v", got, want)
	}
	if got := uncorrect(want, 100, 3, 4); !reflect.DeepEqual(got, want) {
		t.Errorf("fewer requests than connections (wrk corrects nothing): got %v", got)
	}
}

func TestWrkLuaScript(t *testing.T) {
	got := wrkLuaScript([]string{"a.b-c_d", `x"y\z` + "\n"}, "/v1/users/read")
	for _, want := range []string{`local tokens = {"a.b-c_d", "x\"y\\z\010"}`, `wrk.format("GET", "/v1/users/read", {["Authorization"] = "jwt-user " .. t})`,
		"n = n % #reqs + 1", `io.write(string.format('actionkit-wrk {"requests":%d,`, `io.write(string.format('actionkit-wrk h %d %d\n', us, count))`} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %q:\n%s", want, got)
		}
	}
	if bare := wrkLuaScript(nil, "/bare"); !strings.Contains(bare, "local tokens = {}") || !strings.Contains(bare, `reqs[1] = wrk.format("GET", "/bare")`) {
		t.Errorf("script without tokens:\n%s", bare)
	}
}

// needWrk skips the test without wrk, unless CI demands it.
func needWrk(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("wrk"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wrk is not installed (apt-get install wrk)")
		}
		t.Skip("wrk is not installed (apt-get install wrk; make bench installs it)")
	}
}

// countingServer answers every request 200, but 401 to the token
// "refused", and counts the requests by path and Authorization. Every
// 50th request waits 30 ms: slow answers that wrk corrects for.
func countingServer(t *testing.T) (*httptest.Server, func() map[string]int64) {
	var mu sync.Mutex
	seen := map[string]int64{}
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen[r.URL.Path+" "+auth]++
		n++
		slow := n%50 == 0
		mu.Unlock()
		if slow {
			time.Sleep(30 * time.Millisecond)
		}
		if auth == "jwt-user refused" {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_, _ = w.Write([]byte(`{"status":200,"success":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int64 {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int64{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestAlternateToolAndWrk runs this tool's client and Debian's wrk against
// a local server in alternating slices: every request carries one of the
// users' tokens, all of them are used, the counts match what the server
// answered, the warm-up is not counted and each side's CPU is its own.
func TestAlternateToolAndWrk(t *testing.T) {
	t.Parallel()
	needWrk(t)
	srv, seen := countingServer(t)
	tg := &target{base: srv.URL, pool: newUserPool("wrk", srv.URL)}
	tg.pool.users = []*user{{Access: "first"}, {Access: "second"}, {Access: "refused"}, {Access: "unused"}}
	ctx := context.Background()
	client := newClient(srv.URL, 3)
	workers := []*worker{newWorker(0, srv.URL, client), newWorker(1, srv.URL, client), newWorker(2, srv.URL, client)}
	if err := shareUsers(ctx, tg, workers); err != nil {
		t.Fatal(err)
	}
	wr, err := newWrkRunner(ctx, "wrk", tg, "/v1/users/read", true, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.close()
	sides := [2]slicer{&goSlicer{workers: workers, op: opRead}, &wrkSlicer{wr: wr, kind: "read"}}
	sums, _, err := alternate(ctx, sides, 100*time.Millisecond, 2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tool, w := sums[0].result(&Result{}, 0.5), sums[1].result(&Result{}, 0.5)
	got := seen()
	var total int64
	for _, tok := range []string{"first", "second", "refused"} {
		n := got["/v1/users/read jwt-user "+tok]
		if n == 0 {
			t.Errorf("no request carried token %q: %v", tok, got)
		}
		total += n
	}
	if len(got) != 3 {
		t.Errorf("requests %v, want /v1/users/read with the first 3 users' tokens only", got)
	}
	// The warm-ups (100 ms of this tool, a second of wrk) are answered
	// but not counted.
	if w.Requests == 0 || tool.Requests == 0 || w.Requests+tool.Requests >= total || w.Seconds < 1.9 || tool.Seconds < 1.9 {
		t.Errorf("wrk counted %d requests in %.2f s, this tool %d in %.2f s; the server answered %d; want two 1 s slices each, warm-ups apart",
			w.Requests, w.Seconds, tool.Requests, tool.Seconds, total)
	}
	if w.Errors["wrk: status 400 or more (read)"] == 0 || tool.Errors["401 - (read)"] == 0 || w.Latency.Count == 0 || w.Latency.P99 <= 0 {
		t.Errorf("errors: wrk %v, this tool %v, wrk's latency %+v; want the refused token's 401s in both and wrk's histogram",
			w.Errors, tool.Errors, w.Latency)
	}
	if w.CPU == nil || w.CPU.Tool <= 0 || tool.CPU == nil || tool.CPU.Tool <= 0 || w.CPU.Before != 0.5 {
		t.Errorf("CPU: wrk %+v, this tool %+v; want each one's own share and the machine's busy cores before", w.CPU, tool.CPU)
	}
}

// TestRunWrkWithoutTokens: a baseline without a token is read by wrk with
// no Authorization header, after an unmeasured warm-up, and its latencies
// are the answers', one each, without the samples wrk adds for the slow
// ones.
func TestRunWrkWithoutTokens(t *testing.T) {
	t.Parallel()
	needWrk(t)
	srv, seen := countingServer(t)
	tg := &target{base: srv.URL, pool: newUserPool("bare", srv.URL)}
	res := &Result{Kind: "run", Scenario: "bare", Target: "baseline", Concurrency: 2}
	if err := runWrk(context.Background(), "wrk", tg, "/bare", false, runConfig{Duration: time.Second, Warmup: time.Second}, res); err != nil {
		t.Fatal(err)
	}
	got := seen()
	if len(got) != 1 || got["/bare "] <= res.Requests || res.Requests == 0 || res.Tool != "wrk" || res.ErrorCount() != 0 {
		t.Errorf("server saw %v, wrk counted %d (tool %q, errors %v); want /bare without a token, the warm-up's answers uncounted",
			got, res.Requests, res.Tool, res.Errors)
	}
	if int64(res.Latency.Count) != res.Requests || res.Latency.Max < 29 {
		t.Errorf("%d latencies for %d answers, max %.1f ms; want one per answer, the 30 ms ones among them", res.Latency.Count,
			res.Requests, res.Latency.Max)
	}
	if res.CPU == nil || res.CPU.Tool <= 0 || res.Peak == nil {
		t.Errorf("CPU %+v, peak %+v; want wrk's own CPU and the sampler's peak", res.CPU, res.Peak)
	}
}
