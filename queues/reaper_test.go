package queues

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
)

// fakePool writes the Redis state gocraft/work v0.5.1 leaves for a worker
// pool of namespace ns: its entry in worker_pools, its heartbeat hash (unless
// beat is zero) and, per job name, the jobs its workers had fetched into the
// in-progress list with the lock count and lock_info entry gocraft's fetch
// script adds for each. It returns the jobs' JSON.
func fakePool(t *testing.T, conn redis.Conn, ns, id string, beat time.Time, jobs map[string]int) []string {
	t.Helper()
	var names []string
	for name := range jobs {
		names = append(names, name)
	}
	slices.Sort(names) // as gocraft's heartbeater
	do(t, conn, "SADD", ns+":worker_pools", id)
	if !beat.IsZero() {
		do(t, conn, "HMSET", ns+":worker_pools:"+id, "heartbeat_at", beat.Unix(), "started_at", beat.Unix()-60,
			"job_names", strings.Join(names, ","), "concurrency", 4, "worker_ids", "w1,w2", "host", "h", "pid", 42)
	}
	var raws []string
	for name, n := range jobs {
		for i := range n {
			raw, _ := json.Marshal(&work.Job{Name: name, ID: fmt.Sprintf("%s-%s-%d", id, name, i), EnqueuedAt: 1700000000,
				Args: map[string]any{"i": i}})
			do(t, conn, "LPUSH", ns+":jobs:"+name+":"+id+":inprogress", raw)
			do(t, conn, "INCR", ns+":jobs:"+name+":lock")
			do(t, conn, "HINCRBY", ns+":jobs:"+name+":lock_info", id, 1)
			raws = append(raws, string(raw))
		}
	}
	return raws
}

func do(t *testing.T, conn redis.Conn, cmd string, args ...any) any {
	t.Helper()
	v, err := conn.Do(cmd, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return v
}

func TestReapRequeuesOnlyDeadPools(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	conn := pool.Get()
	defer conn.Close()
	ns := Namespace(prefix, PostQueue)
	now := time.Now()
	fakePool(t, conn, ns, "live", now, map[string]int{V1PublishTask: 1})
	dead := fakePool(t, conn, ns, "dead", now.Add(-time.Minute), map[string]int{V1PublishTask: 3, "Other": 1})
	// A count gocraft's worker would have removed with the job had the
	// process not died between the two: the stale-lock cleanup drops it.
	do(t, conn, "INCR", ns+":jobs:Other:lock")
	do(t, conn, "HINCRBY", ns+":jobs:Other:lock_info", "dead", 1)
	// A pool without a heartbeat hash (one starting, or stopping) is left alone.
	fakePool(t, conn, ns, "starting", time.Time{}, map[string]int{V1PublishTask: 1})

	r := newReaper(pool, map[string]string{ns: PostQueue}, 20*time.Second, newRecorder().logger())
	n, err := r.pass()
	if err != nil || n != 4 {
		t.Fatalf("pass: got %d, %v; want the dead pool's 4 jobs", n, err)
	}
	requeued, _ := redis.Strings(conn.Do("LRANGE", ns+":jobs:"+V1PublishTask, 0, -1))
	other, _ := redis.Strings(conn.Do("LRANGE", ns+":jobs:Other", 0, -1))
	got := map[string]bool{}
	for _, j := range append(requeued, other...) {
		got[j] = true
	}
	if len(requeued) != 3 || len(other) != 1 || len(got) != 4 {
		t.Fatalf("job lists: got %q and %q, want the dead pool's jobs %q", requeued, other, dead)
	}
	for _, j := range dead {
		if !got[j] {
			t.Errorf("job %s not requeued unchanged", j)
		}
	}
	for key, want := range map[string]int{
		ns + ":jobs:" + V1PublishTask + ":live:inprogress":     1,
		ns + ":jobs:" + V1PublishTask + ":starting:inprogress": 1,
		ns + ":jobs:" + V1PublishTask + ":dead:inprogress":     0,
		ns + ":jobs:Other:dead:inprogress":                     0,
	} {
		if n, _ := redis.Int(conn.Do("LLEN", key)); n != want {
			t.Errorf("LLEN %s: got %d, want %d", key, n, want)
		}
	}
	if members, _ := redis.Strings(conn.Do("SORT", ns+":worker_pools", "ALPHA")); fmt.Sprint(members) != "[live starting]" {
		t.Errorf("worker_pools: got %v, want [live starting]", members)
	}
	if n, _ := redis.Int(conn.Do("EXISTS", ns+":worker_pools:dead")); n != 0 {
		t.Error("the dead pool's heartbeat is still there")
	}
	if beat, _ := redis.Int64(conn.Do("HGET", ns+":worker_pools:live", "heartbeat_at")); beat != now.Unix() {
		t.Errorf("the live pool's heartbeat changed: %d", beat)
	}
	// The locks count the jobs still held: the live pool's and the starting one's.
	for key, want := range map[string]string{
		ns + ":jobs:" + V1PublishTask + ":lock": "2",
		ns + ":jobs:Other:lock":                 "0",
	} {
		if v, _ := redis.String(conn.Do("GET", key)); v != want {
			t.Errorf("%s: got %q, want %q", key, v, want)
		}
	}
	if info, _ := redis.StringMap(conn.Do("HGETALL", ns+":jobs:"+V1PublishTask+":lock_info")); fmt.Sprint(info) != "map[live:1 starting:1]" {
		t.Errorf("lock_info: got %v", info)
	}
	if info, _ := redis.StringMap(conn.Do("HGETALL", ns+":jobs:Other:lock_info")); len(info) != 0 {
		t.Errorf("Other lock_info: got %v, want empty", info)
	}

	if n, err := r.pass(); err != nil || n != 0 {
		t.Errorf("second pass: got %d, %v; want nothing to do", n, err)
	}
}

// TestConcurrentReapersMoveEachJobOnce runs eight reapers at once on one
// dead pool holding 200 jobs: each job is requeued exactly once.
func TestConcurrentReapersMoveEachJobOnce(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	conn := pool.Get()
	defer conn.Close()
	ns := Namespace(prefix, PostQueue)
	fakePool(t, conn, ns, "dead", time.Now().Add(-time.Minute), map[string]int{V1PublishTask: 200})

	var wg sync.WaitGroup
	moved := make([]int, 8)
	errs := make([]error, 8)
	start := make(chan struct{})
	for i := range moved {
		r := newReaper(pool, map[string]string{ns: PostQueue}, MinDeadAfter, newRecorder().logger())
		wg.Go(func() {
			<-start
			moved[i], errs[i] = r.pass()
		})
	}
	close(start)
	wg.Wait()
	total, winners := 0, 0
	for i, n := range moved {
		if errs[i] != nil {
			t.Fatalf("reaper %d: %v", i, errs[i])
		}
		total += n
		if n > 0 {
			winners++
		}
	}
	jobs, _ := redis.Strings(conn.Do("LRANGE", ns+":jobs:"+V1PublishTask, 0, -1))
	unique := map[string]bool{}
	for _, j := range jobs {
		unique[j] = true
	}
	if total != 200 || winners != 1 || len(jobs) != 200 || len(unique) != 200 {
		t.Errorf("got %d moved by %d reapers, %d jobs listed (%d distinct); want 200 by one, each once",
			total, winners, len(jobs), len(unique))
	}
	if v, _ := redis.String(conn.Do("GET", ns+":jobs:"+V1PublishTask+":lock")); v != "0" {
		t.Errorf("lock: got %q, want 0", v)
	}
}

// TestWorkerRunsJobsOfDeadPool: a Worker's own reaper finds another pool
// of its queue silent past DeadAfter and runs the jobs it held.
func TestWorkerRunsJobsOfDeadPool(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	conn := pool.Get()
	defer conn.Close()
	ns := Namespace(prefix, PostQueue)
	fakePool(t, conn, ns, "dead", time.Now().Add(-time.Minute), map[string]int{V1PublishTask: 2})

	rec := newRecorder()
	var mu sync.Mutex
	ran := map[string]int{}
	done := make(chan struct{}, 2)
	w, err := NewWorker(WorkerConfig{Pool: pool, Prefix: prefix, Logger: rec.logger(), DeadAfter: MinDeadAfter,
		Jobs: []Job{{Queue: PostQueue, Name: V1PublishTask, Handler: func(_ context.Context, job *work.Job) error {
			mu.Lock()
			ran[job.ID]++
			mu.Unlock()
			done <- struct{}{}
			return nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(w.Stop)
	receive(t, done, "the first job of the dead pool")
	receive(t, done, "the second job of the dead pool")
	reaped := rec.waitRecord(t, "dead worker pool reaped: its in-progress jobs are back on the queue")
	for key, want := range map[string]string{"queue": PostQueue, "pool": "dead", "requeued": "2", "pid": "42"} {
		if v, _ := attr(reaped, key); v.String() != want {
			t.Errorf("log %s: got %q, want %q", key, v, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if ran["dead-"+V1PublishTask+"-0"] != 1 || ran["dead-"+V1PublishTask+"-1"] != 1 {
		t.Errorf("runs: got %v, want each job of the dead pool once", ran)
	}
}

func TestNewWorkerRefusesShortDeadAfter(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	h := func(context.Context, *work.Job) error { return nil }
	_, err := NewWorker(WorkerConfig{Pool: pool, Prefix: prefix, DeadAfter: 9 * time.Second,
		Jobs: []Job{{Queue: PostQueue, Name: V1PublishTask, Handler: h}}})
	if err == nil {
		t.Error("NewWorker: got nil error for a dead-after under two heartbeats")
	}
}
