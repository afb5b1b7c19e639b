package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// openTarget returns a target whose server answers every read after
// delay, with four users, and the count of requests it answered.
func openTarget(t *testing.T, delay time.Duration) (*target, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		time.Sleep(delay)
		if r.Header.Get("Authorization") != "jwt-user tok" {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_, _ = w.Write([]byte(`{"status":200,"success":true}`))
	}))
	t.Cleanup(srv.Close)
	tg := &target{base: srv.URL, pool: newUserPool("open", srv.URL)}
	tg.pool.users = []*user{{Access: "tok"}, {Access: "tok"}, {Access: "tok"}, {Access: "tok"}}
	return tg, &n
}

// TestOpenLoopKeepsTheSchedule: a fast server at 500/s for 400 ms gets
// about 200 requests, sent about on time, after an unmeasured warm-up, and
// none answered before it was due. The bounds leave room for a machine
// busy with other work, where vegeta's pacer runs late and drops the
// requests still owed when the time is up.
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	tg, answered := openTarget(t, 0)
	start := time.Now()
	r, err := openLoop(context.Background(), tg, 4, 500, runConfig{Duration: 400 * time.Millisecond, Warmup: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests < 120 || r.Requests > 201 || answered.Load() < r.Requests+25 {
		t.Errorf("measured %d requests of %d answered, want about 200 (500/s for 400 ms) after the warm-up's 50", r.Requests, answered.Load())
	}
	if took := time.Since(start); took < 490*time.Millisecond || took > 5*time.Second {
		t.Errorf("took %v, want about 500 ms: the schedule sets the pace", took)
	}
	if r.Lag == nil || r.Lag.P50 > 100 || r.Latency.Min < 0 || r.ErrorCount() != 0 || r.Tool != "vegeta" || r.Rate != 500 {
		t.Errorf("send lag %+v, errors %v, tool %q, rate %v; want requests sent on time by vegeta at 500/s", r.Lag, r.Errors, r.Tool, r.Rate)
	}
}

// TestOpenLoopChargesTheQueue: two connections each serving 50/s cannot
// keep a 200/s schedule. The requests are sent late and timed from when
// they were due, so latency grows far past the 20 ms a request takes, as
// it would for users arriving at that rate; a closed loop would report 20
// ms.
func TestOpenLoopChargesTheQueue(t *testing.T) {
	tg, _ := openTarget(t, 20*time.Millisecond)
	r, err := openLoop(context.Background(), tg, 2, 200, runConfig{Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// About 30 requests in the 300 ms (2 × 15), the later ones due up to
	// 150 ms before they could leave (fewer on a busy machine).
	if r.Requests < 10 || r.Latency.Max < 100 || r.Lag == nil || r.Lag.Max < 80 || r.Latency.Max < r.Lag.Max+15 {
		t.Errorf("%d requests, latency max %.0f ms, send lag %+v; want the queue charged: latency and lag far beyond 20 ms",
			r.Requests, r.Latency.Max, r.Lag)
	}
}

// TestOpenLoopCountsFailures: answers that are not 2xx are counted by
// status and error code.
func TestOpenLoopCountsFailures(t *testing.T) {
	tg, _ := openTarget(t, 0)
	tg.pool.users = []*user{{Access: "wrong"}, {Access: "wrong"}}
	r, err := openLoop(context.Background(), tg, 2, 200, runConfig{Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.Errors["401 - (read)"] != r.Requests || r.Failed != r.Requests || r.Status5xx != 0 {
		t.Errorf("%d requests, errors %v, failed %d, 5xx %d; want every one a 401", r.Requests, r.Errors, r.Failed, r.Status5xx)
	}
}
