package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// wrkOutput is wrk 4.1's output with the bench script's summary line.
const wrkOutput = `Running 10s test @ http://127.0.0.1:40111/v1/users/read
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.35ms    1.60ms  18.55ms   71.34%
    Req/Sec    14.27k     1.02k   16.50k    69.50%
  284012 requests in 10.00s, 190.06MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  28399.19
Transfer/sec:     19.00MB
actionkit-wrk {"requests":284012,"durationUs":10000795,"connect":0,"read":1,"write":0,"status":3,"timeout":2,"minUs":61,"meanUs":2350.4,"p50Us":2010,"p90Us":4300,"p99Us":7900,"maxUs":18550}
`

func TestParseWrk(t *testing.T) {
	s, err := parseWrk([]byte(wrkOutput))
	if err != nil {
		t.Fatal(err)
	}
	r := s.result(64)
	if r.Requests != 284012 || r.Seconds < 10.0007 || r.Seconds > 10.0008 || int(r.ReqPerSec) != 28398 {
		t.Errorf("requests %d in %vs, %v req/s; want 284012 in 10.000795 s, 28,398/s", r.Requests, r.Seconds, r.ReqPerSec)
	}
	if r.Latency.P50 != 2.01 || r.Latency.P90 != 4.3 || r.Latency.P99 != 7.9 || r.Latency.Max != 18.55 || r.Latency.Min != 0.061 {
		t.Errorf("latency %+v, want ms from µs", r.Latency)
	}
	want := map[string]int64{"wrk: status 400 or more (read)": 3, "wrk: read (read)": 1, "wrk: timeout (read)": 2}
	if len(r.Errors) != len(want) || r.Failed != 6 {
		t.Errorf("errors %v (%d failed), want %v", r.Errors, r.Failed, want)
	}
	for k, v := range want {
		if r.Errors[k] != v {
			t.Errorf("errors[%q] = %d, want %d", k, r.Errors[k], v)
		}
	}
	if r.Series != "wrk" || r.Tool != "wrk" || r.Scenario != "read" || r.Target != "server" || r.Concurrency != 64 {
		t.Errorf("labelled %+v", r)
	}
	for _, bad := range []string{
		"Requests/sec:  28399.19\n",                         // no summary: a wrk without the script
		"actionkit-wrk {\"requests\":1,\"durationUs\":0}\n", // no duration
		"actionkit-wrk {not json}\n",
	} {
		if _, err := parseWrk([]byte(bad)); err == nil {
			t.Errorf("parseWrk(%q): nil error", bad)
		}
	}
}

func TestWrkLuaScript(t *testing.T) {
	got := wrkLuaScript([]string{"a.b-c_d", `x"y\z` + "\n"}, "/v1/users/read")
	for _, want := range []string{`local tokens = {"a.b-c_d", "x\"y\\z\010"}`, `wrk.format("GET", "/v1/users/read", {["Authorization"] = "jwt-user " .. t})`,
		"n = n % #reqs + 1", `io.write(string.format('actionkit-wrk {"requests":%d,`} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %q:\n%s", want, got)
		}
	}
}

func TestWrkSummaryMerge(t *testing.T) {
	s := wrkSummary{Requests: 100, DurationUs: 1_000_000, Status: 1, MinUs: 50, MeanUs: 1000, P50Us: 900, P90Us: 2000, P99Us: 4000, MaxUs: 9000}
	s.merge(wrkSummary{Requests: 300, DurationUs: 2_000_000, Timeout: 2, MinUs: 40, MeanUs: 2000, P50Us: 1700, P90Us: 3000, P99Us: 8000, MaxUs: 7000})
	want := wrkSummary{Requests: 400, DurationUs: 3_000_000, Status: 1, Timeout: 2, MinUs: 40, MeanUs: 1750, P50Us: 1500, P90Us: 2750,
		P99Us: 7000, MaxUs: 9000}
	if s != want {
		t.Errorf("merged %+v, want %+v", s, want)
	}
	var empty wrkSummary
	empty.merge(wrkSummary{Requests: 5, DurationUs: 10, MinUs: 70, P50Us: 100, MaxUs: 200})
	if empty.MinUs != 70 || empty.P50Us != 100 || empty.Requests != 5 {
		t.Errorf("merged into nothing: %+v", empty)
	}
}

// TestCompareWithWrk runs Debian's wrk against a local server, in slices
// alternating with this tool: every request carries one of the users'
// tokens, all of them are used, and the counts match what the server
// answered.
func TestCompareWithWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wrk is not installed (apt-get install wrk)")
		}
		t.Skip("wrk is not installed (apt-get install wrk; make bench installs it)")
	}
	var mu sync.Mutex
	seen := map[string]int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen[r.URL.Path+" "+auth]++
		mu.Unlock()
		if auth == "jwt-user refused" {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_, _ = w.Write([]byte(`{"status":200,"success":true}`))
	}))
	defer srv.Close()
	tg := &target{base: srv.URL, pool: newUserPool("wrk", srv.URL)}
	tg.pool.users = []*user{{Access: "first"}, {Access: "second"}, {Access: "refused"}, {Access: "unused"}}
	tool, w, err := compareWithWrk(context.Background(), "wrk", tg, 3, runConfig{Duration: 2 * time.Second, Warmup: 10 * time.Millisecond, MaxOps: 1 << 40}, 2)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var total int64
	for _, tok := range []string{"first", "second", "refused"} {
		n := seen["/v1/users/read jwt-user "+tok]
		if n == 0 {
			t.Errorf("no request carried token %q: %v", tok, seen)
		}
		total += n
	}
	if len(seen) != 3 {
		t.Errorf("requests %v, want /v1/users/read with the first 3 users' tokens only", seen)
	}
	if w.Requests == 0 || tool.Requests == 0 || w.Requests+tool.Requests > total || w.Seconds < 1.9 || tool.Seconds < 1.9 {
		t.Errorf("wrk counted %d requests in %.2f s, this tool %d in %.2f s; the server answered %d; want two 1 s slices each",
			w.Requests, w.Seconds, tool.Requests, tool.Seconds, total)
	}
	if w.Errors["wrk: status 400 or more (read)"] == 0 || tool.Errors["401 - (read)"] == 0 {
		t.Errorf("errors: wrk %v, this tool %v; want the refused token's 401s in both", w.Errors, tool.Errors)
	}
	if w.Series != "wrk" || w.Tool != "wrk" || tool.Series != "wrk" || tool.Tool != "" || w.Latency.P99 <= 0 {
		t.Errorf("labelled %+v and %+v", w, tool)
	}
	if w.CPU == nil || w.CPU.Tool <= 0 || tool.CPU == nil || tool.CPU.Tool <= 0 {
		t.Errorf("CPU: wrk %+v, this tool %+v; want each one's own share", w.CPU, tool.CPU)
	}
}
