package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParsePlan(t *testing.T) {
	got, err := parsePlan(defaultPlan)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 15 || got[0] != (step{"read", 16}) || got[12] != (step{"sockets", 2000}) || got[14] != (step{"oauthrefresh", 64}) {
		t.Errorf("got %v", got)
	}
	if s := planString(got); s != "read:16 read:64 read:128 refresh:16 refresh:64 login:8 login:64 mfalogin:64 publish:16 publish:64 mixed:64 sockets:500 sockets:2000 oauthcode:64 oauthrefresh:64" {
		t.Errorf("planString = %q", s)
	}
	for _, bad := range []string{"", "read", "read:", "read:0", "read:x", "write:4", "read:1,,2", "read:20000"} {
		if _, err := parsePlan(bad); err == nil {
			t.Errorf("parsePlan(%q) = nil error, want one", bad)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	got, err := withDatabase("postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "actionkit_bench_x")
	if want := "postgres://postgres@127.0.0.1:5432/actionkit_bench_x?sslmode=disable"; err != nil || got != want {
		t.Errorf("got %q, %v, want %q", got, err, want)
	}
}

func TestServerSettings(t *testing.T) {
	settings := serverSettings("postgres://db", "redis://r", "ns")
	got := " " + strings.Join(settings, " ") + " "
	// The limiters are on, with maxima the bench's one address never
	// reaches, and their windows and sync interval at the defaults.
	for _, want := range []string{"APP_ENV=production", " RATE_LIMIT_MAX=1000000000 ", " AUTH_RATE_LIMIT_MAX=1000000000 ",
		"LOG_LEVEL=warn", "SHUTDOWN_DRAIN=0s", "JOBS_NAMESPACE=ns"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings %q lack %q", got, want)
		}
	}
	for _, unwanted := range []string{"RATE_LIMIT_WINDOW", "RATE_LIMIT_SYNC_INTERVAL", "=0 "} {
		if strings.Contains(got, unwanted) {
			t.Errorf("settings %q hold %q", got, unwanted)
		}
	}
	off := withLimiterOff(append(settings, "ACCESS_TOKEN_SECRET=s"))
	if len(off) != len(settings)+1 || !slices.Contains(off, "RATE_LIMIT_MAX=0") || slices.Contains(off, "RATE_LIMIT_MAX=1000000000") ||
		!slices.Contains(off, "AUTH_RATE_LIMIT_MAX=1000000000") || !slices.Contains(off, "ACCESS_TOKEN_SECRET=s") {
		t.Errorf("withLimiterOff: %q", off)
	}
	if strings.Contains(got, "SECRET") {
		t.Errorf("settings %q hold a secret", got)
	}
	if ids := []string{uniqueID(), uniqueID()}; ids[0] == ids[1] || !reflect.DeepEqual(len(ids[0]), len(ids[1])) {
		t.Errorf("uniqueID: %v", ids)
	}
}

func TestParseBenchServerEnv(t *testing.T) {
	c, err := parseBench([]string{"-server-env", "PPROF_ADDR=127.0.0.1:6060", "-server-env", "GOGC=200", "-baseline-pprof", "127.0.0.1:6061"})
	if err != nil || !reflect.DeepEqual(c.serverEnv, []string{"PPROF_ADDR=127.0.0.1:6060", "GOGC=200"}) || c.baselinePprof != "127.0.0.1:6061" {
		t.Fatalf("got %v, %v", c, err)
	}
	if got := strings.Join(baselineFlags(c.baselinePprof, 0), " "); !strings.HasSuffix(got, " -pprof 127.0.0.1:6061") {
		t.Errorf("baseline flags %q lack the profiler's address", got)
	}
	for _, bad := range []string{"GOGC", "=1", "A B=1"} {
		if _, err := parseBench([]string{"-server-env", bad}); err == nil {
			t.Errorf("-server-env %q: nil error, want one", bad)
		}
	}
}
