package main

import (
	"context"
	"testing"
	"time"
)

// TestSideSumsItsSlices: a side of the limiter comparison adds up the
// slices run on it into one result, warm-up left out.
func TestSideSumsItsSlices(t *testing.T) {
	base := fixedServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 29\r\n\r\n"+`{"status":200,"success":true}`)
	tg := &target{base: base, pool: newUserPool("side", base)}
	tg.pool.users = []*user{{Access: "a"}, {Access: "b"}}
	s := &side{series: "limiter", limiter: "on", t: tg}
	defer s.close()
	ctx := context.Background()
	if err := s.prepare(ctx, 2, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if s.rec.requests != 0 {
		t.Fatalf("the warm-up was measured: %d requests", s.rec.requests)
	}
	for range 3 {
		s.measure(ctx, runConfig{Duration: 100 * time.Millisecond, MaxOps: 1 << 40})
	}
	r := s.result(2, 0.25)
	if r.Series != "limiter" || r.Limiter != "on" || r.Scenario != "read" || r.Concurrency != 2 {
		t.Errorf("labelled %+v", r)
	}
	if r.Seconds < 0.3 || r.Seconds > 1 || r.Requests == 0 || r.Latency.Count != int(r.Requests) || r.ErrorCount() != 0 {
		t.Errorf("%d requests in %.2f s (%d latencies, %d errors); want three slices of 100 ms summed", r.Requests, r.Seconds,
			r.Latency.Count, r.ErrorCount())
	}
	if r.CPU == nil || r.CPU.Before != 0.25 || r.CPU.Tool <= 0 {
		t.Errorf("CPU %+v, want the tool's share and the machine's busy cores before", r.CPU)
	}
}
