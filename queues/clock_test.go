package queues

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
)

var everySecond = Schedule{Queue: MaintenanceQueue, Job: PurgeSessionsTask, Spec: "* * * * * *"}

// startClock builds and starts a Clock, stopped when the test ends.
func startClock(t *testing.T, cfg ClockConfig) *Clock {
	t.Helper()
	c, err := NewClock(cfg)
	if err != nil {
		t.Fatalf("NewClock: %v", err)
	}
	c.Start()
	t.Cleanup(c.Stop)
	return c
}

// ticks returns, per tick epoch, how many of the recorders logged it as
// enqueued and as skipped.
func ticks(recs ...*recorder) (enqueued, skipped map[int64]int) {
	enqueued, skipped = map[int64]int{}, map[int64]int{}
	for _, r := range recs {
		for _, rec := range r.all("clock tick") {
			tick, _ := attr(rec, "tick")
			epoch := tick.Time().Unix()
			if v, _ := attr(rec, "enqueued"); v.Bool() {
				enqueued[epoch]++
			} else {
				skipped[epoch]++
			}
		}
	}
	return enqueued, skipped
}

// TestClocksFireEachTickOnce runs two clocks on time and one whose host runs
// 1.5 s late, all firing every second, and checks that each tick became one
// job: the late clock re-fires ticks the others already enqueued (and a
// worker may already have consumed), which gocraft's periodic enqueuer would
// turn into duplicates.
func TestClocksFireEachTickOnce(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	late := func() time.Time { return time.Now().Add(-1500 * time.Millisecond) }
	recs := []*recorder{newRecorder(), newRecorder(), newRecorder()}
	var clocks []*Clock
	for i, r := range recs {
		cfg := ClockConfig{Pool: pool, Prefix: prefix, Logger: r.logger(), Schedules: []Schedule{everySecond}}
		if i == 2 {
			cfg.Now = late
		}
		clocks = append(clocks, startClock(t, cfg))
	}

	// Wait until the clocks on time enqueued 3 ticks and the late clock
	// tried the last of them too.
	var last int64
	recs[0].waitFor(t, "3 ticks enqueued", func() bool {
		enq, _ := ticks(recs[:2]...)
		for e := range enq {
			last = max(last, e)
		}
		return len(enq) >= 3
	})
	recs[2].waitFor(t, "the late clock to reach the last tick", func() bool {
		enq, skip := ticks(recs[2])
		return enq[last]+skip[last] > 0
	})
	for _, c := range clocks {
		c.Stop()
	}
	enqueued, skipped := ticks(recs...)
	for epoch, n := range enqueued {
		if n != 1 {
			t.Errorf("tick %d: enqueued by %d clocks, want 1", epoch, n)
		}
	}
	if skipped[last] != 2 {
		t.Errorf("tick %d: skipped by %d clocks, want 2", last, skipped[last])
	}

	conn := pool.Get()
	defer conn.Close()
	raw, err := redis.ByteSlices(conn.Do("LRANGE", prefix+":MaintenanceQueue:jobs:PurgeExpiredSessions", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, r := range raw {
		var j work.Job
		if err := json.Unmarshal(r, &j); err != nil {
			t.Fatalf("job %s: %v", r, err)
		}
		ids[j.ID]++
		if want := fmt.Sprintf("periodic:%s:%d", PurgeSessionsTask, j.EnqueuedAt); j.ID != want || j.Name != PurgeSessionsTask {
			t.Errorf("job: got name %q id %q, want %q %q", j.Name, j.ID, PurgeSessionsTask, want)
		}
	}
	for id, n := range ids {
		if n != 1 {
			t.Errorf("job %s: %d times in the list, want 1", id, n)
		}
	}
	if len(raw) < 3 || len(raw) != len(enqueued) {
		t.Errorf("job list: got %d jobs for %d enqueued ticks, want the same number, at least 3", len(raw), len(enqueued))
	}
	t.Logf("ticks enqueued once each: %v; skipped (already enqueued): %v", enqueued, skipped)
}

func TestClockJobRunsOnWorker(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	got := make(chan *work.Job, 10)
	startWorker(t, prefix, pool, newRecorder(), Job{Queue: MaintenanceQueue, Name: PurgeSessionsTask,
		Handler: func(_ context.Context, j *work.Job) error {
			got <- j
			return nil
		}})
	startClock(t, ClockConfig{Pool: pool, Prefix: prefix, Schedules: []Schedule{everySecond}})
	j := receive(t, got, "a periodic job to run")
	if want := fmt.Sprintf("periodic:%s:%d", PurgeSessionsTask, j.EnqueuedAt); j.ID != want {
		t.Errorf("job id: got %q, want %q", j.ID, want)
	}
	if d := time.Since(time.Unix(j.EnqueuedAt, 0)); d < 0 || d > waitLimit {
		t.Errorf("job tick: %v ago, want a recent past tick", d)
	}
}

func TestNewClockRefusesBadSchedules(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	for _, tc := range []struct {
		name string
		s    Schedule
	}{
		{"bad spec", Schedule{Queue: MaintenanceQueue, Job: PurgeSessionsTask, Spec: "every minute"}},
		{"@every", Schedule{Queue: MaintenanceQueue, Job: PurgeSessionsTask, Spec: "@every 1m"}},
		{"no queue", Schedule{Job: PurgeSessionsTask, Spec: "0 * * * * *"}},
		{"no job", Schedule{Queue: MaintenanceQueue, Spec: "0 * * * * *"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewClock(ClockConfig{Pool: pool, Prefix: prefix, Schedules: []Schedule{tc.s}}); err == nil {
				t.Errorf("NewClock(%+v): got nil error, want one", tc.s)
			}
		})
	}
	if _, err := NewClock(ClockConfig{Pool: pool, Prefix: prefix, Schedules: []Schedule{
		{Queue: MaintenanceQueue, Job: PurgeSessionsTask, Spec: "@hourly"},
	}}); err != nil {
		t.Errorf("NewClock(@hourly): %v", err)
	}
}
