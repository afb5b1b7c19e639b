package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 42
process_resident_memory_bytes 5.1234816e+07
actionkit_http_requests_total{action="V1Read",status="200"} 10
actionkit_sockets_connected 2000 1700000000000
`
	got, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got["go_goroutines"] != 42 || got["process_resident_memory_bytes"] != 51234816 || got["actionkit_sockets_connected"] != 2000 {
		t.Errorf("got %v", got)
	}
	if _, ok := got["actionkit_http_requests_total"]; ok {
		t.Error("a labelled sample was read as unlabelled")
	}
}

func TestParseCPU(t *testing.T) {
	m, err := parseStatCPU("cpu  100 5 50 800 10 1 4 30 0 0")
	if err != nil || m != [8]uint64{100, 5, 50, 800, 10, 1, 4, 30} {
		t.Errorf("parseStatCPU = %v, %v", m, err)
	}
	if _, err := parseStatCPU("cpu0 1 2 3 4 5 6 7 8"); err == nil {
		t.Error("parseStatCPU accepted a per-core line")
	}
	secs, err := parsePidStat("1234 (bin server) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 0 0")
	if err != nil || secs != 3 {
		t.Errorf("parsePidStat = %v, %v, want 3 s", secs, err)
	}
	if _, err := parsePidStat("garbage"); err == nil {
		t.Error("parsePidStat accepted garbage")
	}
}

func TestCPUBetween(t *testing.T) {
	t0 := time.Unix(0, 0)
	a := cpuSnapshot{at: t0, machine: [8]uint64{0, 0, 0, 0, 0, 0, 0, 0}, proc: 10, self: 1}
	b := cpuSnapshot{at: t0.Add(2 * time.Second), machine: [8]uint64{150, 0, 50, 150, 0, 0, 0, 50}, proc: 12, self: 1.5}
	got := cpuBetween(a, b, 2)
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if !near(got.Server, 1) || !near(got.Tool, 0.25) || !near(got.Busy, 1) || !near(got.Steal, 0.25) {
		t.Errorf("got %+v, want server 1, tool 0.25, busy 1, steal 0.25", got)
	}
	if got := cpuBetween(cpuSnapshot{at: t0, proc: -1}, cpuSnapshot{at: t0.Add(time.Second), proc: 5}, 2); got.Server != -1 {
		t.Errorf("unknown process CPU: got %v, want -1", got.Server)
	}
}
