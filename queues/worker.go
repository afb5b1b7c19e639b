package queues

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
)

// DefaultMaxFails is the number of attempts of a job whose MaxFails is zero;
// after the last one the job is moved to the queue's dead set.
const DefaultMaxFails = 4

// DefaultConcurrency is the number of jobs a Worker runs at once on each
// queue when WorkerConfig.Concurrency is zero.
const DefaultConcurrency = 4

// Handler runs one job. Its context is cancelled when the Worker is asked to
// stop, so that a long job can give up; returning an error (ctx.Err()
// included) counts as a failure and the job is retried later. The job's
// arguments are in job.Args, decoded from JSON.
type Handler func(ctx context.Context, job *work.Job) error

// Job declares a job a Worker consumes.
type Job struct {
	// Queue is the queue the job is enqueued on, such as PostQueue.
	Queue string
	// Name is the job name, such as V1PublishTask.
	Name string
	// Handler runs the job.
	Handler Handler
	// MaxFails is the number of attempts before the job is dead; zero means
	// DefaultMaxFails.
	MaxFails uint
	// Backoff returns the seconds to wait before the next attempt of a
	// failed job; nil means gocraft/work's default (fails⁴ + 15 + random
	// seconds). Tests use a zero back-off.
	Backoff work.BackoffCalculator
}

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	// Pool is the Redis connection pool. If it caps active connections
	// (MaxActive), leave room for every queue's workers and gocraft's
	// background loops (heartbeat, requeuers, reaper).
	Pool *redis.Pool
	// Prefix is the queues' key prefix (JOBS_NAMESPACE), such as "actionkit".
	Prefix string
	// Concurrency is the number of jobs run at once on each queue; zero
	// means DefaultConcurrency.
	Concurrency int
	// Logger receives failures (WARN), dead jobs and panics (ERROR); nil
	// discards them.
	Logger *slog.Logger
	// DeadAfter is how long another Worker's pool may go without a heartbeat
	// before this Worker requeues the jobs it had in progress (see the
	// package documentation); zero means DefaultDeadAfter, and it may not be
	// shorter than MinDeadAfter.
	DeadAfter time.Duration
	// Jobs are the jobs to consume. A queue must be consumed with all its
	// job names by every Worker of a deployment: gocraft moves a retried job
	// whose name a pool does not know to the dead set.
	Jobs []Job
}

// Worker consumes jobs, with one gocraft/work WorkerPool per queue.
type Worker struct {
	log    *slog.Logger
	redis  *redis.Pool
	prefix string
	pools  []*work.WorkerPool
	reaper *reaper
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	started bool
	stopped bool
}

// poolContext is the per-job context struct gocraft/work requires; it is
// empty because handlers receive a context.Context from the Worker.
type poolContext struct{}

// NewWorker returns a Worker for cfg, not yet started. It fails when cfg is
// incomplete or declares a job twice.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	concurrency := cfg.Concurrency
	if concurrency == 0 {
		concurrency = DefaultConcurrency
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Worker{log: orDiscard(cfg.Logger), redis: cfg.Pool, prefix: cfg.Prefix, ctx: ctx, cancel: cancel}
	byQueue := map[string]*work.WorkerPool{}
	namespaces := map[string]string{}
	for _, j := range cfg.Jobs {
		p, ok := byQueue[j.Queue]
		if !ok {
			p = work.NewWorkerPool(poolContext{}, uint(concurrency), Namespace(cfg.Prefix, j.Queue), cfg.Pool)
			byQueue[j.Queue] = p
			w.pools = append(w.pools, p)
			namespaces[Namespace(cfg.Prefix, j.Queue)] = j.Queue
		}
		maxFails := j.MaxFails
		if maxFails == 0 {
			maxFails = DefaultMaxFails
		}
		opts := work.JobOptions{MaxFails: maxFails, Backoff: j.Backoff}
		p.JobWithOptions(j.Name, opts, w.run(j, maxFails))
	}
	deadAfter := cfg.DeadAfter
	if deadAfter == 0 {
		deadAfter = DefaultDeadAfter
	}
	w.reaper = newReaper(cfg.Pool, namespaces, deadAfter, w.log)
	return w, nil
}

// check refuses a cfg that is incomplete, out of range or declares a job
// twice.
func (cfg *WorkerConfig) check() error {
	switch {
	case cfg.Pool == nil:
		return errors.New("queues: worker: nil pool")
	case cfg.Prefix == "":
		return errors.New("queues: worker: empty prefix")
	case cfg.Concurrency < 0:
		return fmt.Errorf("queues: worker: negative concurrency %d", cfg.Concurrency)
	case cfg.DeadAfter != 0 && cfg.DeadAfter < MinDeadAfter:
		return fmt.Errorf("queues: worker: dead-after %v is shorter than %v", cfg.DeadAfter, MinDeadAfter)
	}
	seen := map[[2]string]bool{}
	for _, j := range cfg.Jobs {
		key := [2]string{j.Queue, j.Name}
		switch {
		case j.Queue == "" || j.Name == "":
			return fmt.Errorf("queues: worker: job %q on queue %q: empty name", j.Name, j.Queue)
		case j.Handler == nil:
			return fmt.Errorf("queues: worker: job %s %s: nil handler", j.Queue, j.Name)
		case seen[key]:
			return fmt.Errorf("queues: worker: job %s %s declared twice", j.Queue, j.Name)
		}
		seen[key] = true
	}
	return nil
}

// Start starts consuming. It returns at once; a Worker starts only once.
func (w *Worker) Start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started || w.stopped {
		return
	}
	w.started = true
	for _, p := range w.pools {
		p.Start()
	}
	w.reaper.start()
}

// Stop cancels the handlers' context, stops fetching jobs and waits for the
// running jobs to return (gocraft's WorkerPool.Stop waits for each worker's
// current job). A job that gives up returns an error and is retried later,
// by this or another Worker. Stop may be called more than once.
func (w *Worker) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.stopped = true
	w.cancel()
	if !w.started {
		return
	}
	var wg sync.WaitGroup
	wg.Go(w.reaper.halt)
	for _, p := range w.pools {
		wg.Go(p.Stop)
	}
	wg.Wait()
}

// run adapts j's handler to gocraft: it passes the Worker's context,
// recovers a panic into an error (so that it is logged with its stack; gocraft
// would only print it), and logs every failure.
//
// A job fetched after Stop was called (gocraft's worker loop may fetch one
// more before it sees the stop signal) is not run: it is put back at the head
// of its queue unchanged, so that shutting down never costs a job an attempt.
func (w *Worker) run(j Job, maxFails uint) func(*work.Job) error {
	return func(job *work.Job) (err error) {
		if w.ctx.Err() != nil {
			return w.putBack(j.Queue, job)
		}
		started := time.Now()
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
				w.log.Error("job panicked", append(jobAttrs(j.Queue, job), "panic", r,
					"stack", string(debug.Stack()))...)
			}
			if err != nil {
				w.failed(j.Queue, job, err, maxFails)
				return
			}
			w.log.Debug("job done", append(jobAttrs(j.Queue, job), "duration", time.Since(started))...)
		}()
		return j.Handler(w.ctx, job)
	}
}

// failed logs a failed attempt at WARN, and the last one again at ERROR as
// a dead job. gocraft increments job.Fails only after the handler returns,
// so this attempt is number job.Fails+1.
func (w *Worker) failed(queue string, job *work.Job, err error, maxFails uint) {
	attempt := uint(job.Fails) + 1
	dead := attempt >= maxFails
	attrs := append(jobAttrs(queue, job), "args", job.Args, "attempt", attempt,
		"maxFails", maxFails, "error", err.Error())
	w.log.Warn("job failed", append(attrs, "retry", !dead)...)
	if dead {
		w.log.Error("job dead", attrs...)
	}
}

// putBack pushes job back to the consuming end of its queue's list, as it
// was enqueued. When that fails the job counts as failed and is retried.
func (w *Worker) putBack(queue string, job *work.Job) error {
	raw, err := json.Marshal(job)
	if err == nil {
		conn := w.redis.Get()
		defer conn.Close()
		_, err = conn.Do("RPUSH", Namespace(w.prefix, queue)+":jobs:"+job.Name, raw)
	}
	if err != nil {
		w.log.Warn("job not put back, will retry", append(jobAttrs(queue, job), "error", err.Error())...)
		return fmt.Errorf("worker stopping, could not put the job back: %w", err)
	}
	w.log.Info("job put back, worker stopping", jobAttrs(queue, job)...)
	return nil
}

// jobAttrs are the log attributes naming a job.
func jobAttrs(queue string, job *work.Job) []any {
	return []any{"queue", queue, "job", job.Name, "id", job.ID}
}

// orDiscard returns l, or a logger that discards everything when l is nil.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
