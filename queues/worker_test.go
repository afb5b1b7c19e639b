package queues

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/poll"
)

// startWorker builds and starts a Worker of the given jobs, stopped when the
// test ends.
func startWorker(t *testing.T, prefix string, pool *redis.Pool, rec *recorder, jobs ...Job) *Worker {
	t.Helper()
	w, err := NewWorker(WorkerConfig{Pool: pool, Prefix: prefix, Concurrency: 2, Logger: rec.logger(), Jobs: jobs})
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	w.Start()
	t.Cleanup(w.Stop)
	return w
}

// zeroBackoff retries a failed job at once (the retrier still polls each second).
func zeroBackoff(*work.Job) int64 { return 0 }

func TestWorkerRunsJob(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	got := make(chan *work.Job, 1)
	startWorker(t, prefix, pool, newRecorder(), Job{Queue: PostQueue, Name: V1PublishTask,
		Handler: func(ctx context.Context, job *work.Job) error {
			got <- job
			return ctx.Err()
		}})
	postID := uuid.Must(uuid.NewV7())
	id, err := NewEnqueuer(pool, prefix).EnqueuePublish(postID)
	if err != nil {
		t.Fatalf("EnqueuePublish: %v", err)
	}
	job := receive(t, got, "the job to run")
	if job.ID != id || job.ArgString("postId") != postID.String() {
		t.Errorf("job: got id %q postId %q, want %q %q", job.ID, job.ArgString("postId"), id, postID)
	}
}

func TestWorkerRetriesThenLogsDeadJob(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	rec := newRecorder()
	var attempts atomic.Int32
	startWorker(t, prefix, pool, rec, Job{Queue: PostQueue, Name: V1PublishTask, MaxFails: 2, Backoff: zeroBackoff,
		Handler: func(context.Context, *work.Job) error {
			attempts.Add(1)
			return errors.New("moderation service down")
		}})
	id, err := NewEnqueuer(pool, prefix).EnqueuePublish(uuid.Must(uuid.NewV7()))
	if err != nil {
		t.Fatalf("EnqueuePublish: %v", err)
	}

	dead := rec.waitRecord(t, "job dead")
	if got := attempts.Load(); got != 2 {
		t.Errorf("attempts: got %d, want 2", got)
	}
	warns := rec.all("job failed")
	if len(warns) != 2 {
		t.Fatalf("WARN records: got %d, want one per attempt, 2", len(warns))
	}
	for i, w := range warns {
		if v, _ := attr(w, "retry"); w.Level != slog.LevelWarn || v.Bool() != (i == 0) {
			t.Errorf("WARN record %d: got level %v retry %v, want WARN retry %v", i, w.Level, v, i == 0)
		}
	}
	if dead.Level != slog.LevelError {
		t.Errorf("dead record level: got %v, want ERROR", dead.Level)
	}
	for key, want := range map[string]string{
		"queue": PostQueue, "job": V1PublishTask, "id": id, "error": "moderation service down", "attempt": "2",
	} {
		if v, ok := attr(dead, key); !ok || v.String() != want {
			t.Errorf("dead record %s: got %v, want %q", key, v, want)
		}
	}
	if v, ok := attr(dead, "args"); !ok || !strings.Contains(v.String(), "postId") {
		t.Errorf("dead record args: got %v, want the job's args", v)
	}
	conn := pool.Get()
	defer conn.Close()
	// gocraft writes the dead set after the handler (and the log) returned.
	poll.Until(t, waitLimit, "the job in the dead set", func() bool {
		n, _ := redis.Int(conn.Do("ZCARD", prefix+":PostQueue:dead"))
		return n == 1
	})
}

func TestWorkerLogsPanic(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	rec := newRecorder()
	startWorker(t, prefix, pool, rec, Job{Queue: PostQueue, Name: V1PublishTask, MaxFails: 1,
		Handler: func(context.Context, *work.Job) error { panic("kaboom") }})
	if _, err := NewEnqueuer(pool, prefix).EnqueuePublish(uuid.Must(uuid.NewV7())); err != nil {
		t.Fatalf("EnqueuePublish: %v", err)
	}
	panicked := rec.waitRecord(t, "job panicked")
	if v, _ := attr(panicked, "stack"); !strings.Contains(v.String(), "worker_test.go") {
		t.Errorf("panic record: stack %q does not show the handler", v)
	}
	dead := rec.waitRecord(t, "job dead")
	if v, _ := attr(dead, "error"); v.String() != "panic: kaboom" {
		t.Errorf("dead record error: got %q, want %q", v, "panic: kaboom")
	}
}

func TestWorkerStopWaitsForRunningJob(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	running, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	w := startWorker(t, prefix, pool, newRecorder(), Job{Queue: PostQueue, Name: V1PublishTask,
		Handler: func(ctx context.Context, _ *work.Job) error {
			close(running)
			<-ctx.Done() // Stop cancels the handlers' context...
			close(cancelled)
			<-release // ...and still waits for the job to return.
			finished.Store(true)
			return nil
		}})
	if _, err := NewEnqueuer(pool, prefix).EnqueuePublish(uuid.Must(uuid.NewV7())); err != nil {
		t.Fatalf("EnqueuePublish: %v", err)
	}
	receive(t, running, "the job to start")

	stopped := make(chan bool)
	go func() {
		w.Stop()
		stopped <- finished.Load()
	}()
	receive(t, cancelled, "the handler's context to be cancelled")
	close(release)
	if jobDone := receive(t, stopped, "Stop to return"); !jobDone {
		t.Error("Stop returned before the running job finished")
	}
}

func TestWorkerPutsBackJobFetchedAfterStop(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	var ran atomic.Bool
	j := Job{Queue: PostQueue, Name: V1PublishTask, Handler: func(context.Context, *work.Job) error {
		ran.Store(true)
		return nil
	}}
	w, err := NewWorker(WorkerConfig{Pool: pool, Prefix: prefix, Jobs: []Job{j}})
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	w.Stop()
	job := &work.Job{Name: V1PublishTask, ID: "0123456789abcdef01234567", EnqueuedAt: 1700000000,
		Args: map[string]any{"postId": "x"}, Fails: 2, LastErr: "earlier"}
	if err := w.run(j, 4)(job); err != nil {
		t.Fatalf("handler after Stop: got %v, want nil (job put back)", err)
	}
	if ran.Load() {
		t.Error("handler ran after Stop")
	}
	conn := pool.Get()
	defer conn.Close()
	raw, err := redis.Bytes(conn.Do("RPOP", prefix+":PostQueue:jobs:V1PublishTask"))
	if err != nil {
		t.Fatalf("job list: %v", err)
	}
	var back work.Job
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != job.ID || back.Fails != 2 || back.ArgString("postId") != "x" || back.EnqueuedAt != job.EnqueuedAt {
		t.Errorf("job put back: got %s, want it unchanged", raw)
	}
}

func TestNewWorkerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	h := func(context.Context, *work.Job) error { return nil }
	ok := Job{Queue: PostQueue, Name: V1PublishTask, Handler: h}
	for _, tc := range []struct {
		name string
		cfg  WorkerConfig
	}{
		{"nil pool", WorkerConfig{Prefix: prefix, Jobs: []Job{ok}}},
		{"empty prefix", WorkerConfig{Pool: pool, Jobs: []Job{ok}}},
		{"negative concurrency", WorkerConfig{Pool: pool, Prefix: prefix, Concurrency: -1}},
		{"nil handler", WorkerConfig{Pool: pool, Prefix: prefix, Jobs: []Job{{Queue: PostQueue, Name: "X"}}}},
		{"empty name", WorkerConfig{Pool: pool, Prefix: prefix, Jobs: []Job{{Queue: PostQueue, Handler: h}}}},
		{"twice", WorkerConfig{Pool: pool, Prefix: prefix, Jobs: []Job{ok, ok}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewWorker(tc.cfg); err == nil {
				t.Error("NewWorker: got nil error, want one")
			}
		})
	}
}
