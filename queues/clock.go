package queues

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/robfig/cron"
)

// Schedule fires the job named Job on Queue at the times of Spec.
type Schedule struct {
	// Queue is the queue the job is enqueued on, such as MaintenanceQueue.
	Queue string
	// Job is the job name, such as PurgeSessionsTask.
	Job string
	// Spec is a robfig/cron v1 spec with seconds first, in UTC:
	// "0 30 3 * * *" is 03:30:00 every day. Descriptors such as "@hourly"
	// work; "@every <duration>" is refused because its ticks depend on when
	// each clock started, so two clocks could not agree on them.
	Spec string
}

// ClockConfig configures a Clock.
type ClockConfig struct {
	// Pool is the Redis connection pool.
	Pool *redis.Pool
	// Prefix is the queues' key prefix (JOBS_NAMESPACE), such as "actionkit".
	Prefix string
	// Logger receives failures to enqueue (ERROR) and each tick (DEBUG); nil
	// discards them.
	Logger *slog.Logger
	// Schedules are the periodic jobs.
	Schedules []Schedule
	// Now returns the current time; nil means time.Now. Tests use it to play
	// a clock whose host runs late.
	Now func() time.Time
}

// Clock enqueues periodic jobs. Any number of clocks may run at once: each
// tick of a schedule is enqueued exactly once (see the package doc).
type Clock struct {
	pool      *redis.Pool
	prefix    string
	log       *slog.Logger
	now       func() time.Time
	schedules []schedule

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    sync.WaitGroup
	stopped bool
}

// schedule is a Schedule with its parsed spec.
type schedule struct {
	Schedule
	cron cron.Schedule
}

// clockMarkTTL bounds how long a clock remembers the last tick it or another
// clock fired. It only needs to outlast the lag between two clocks firing the
// same tick (their hosts' time difference plus scheduling delays).
const clockMarkTTL = 24 * time.Hour

// clockFireTimeout bounds one tick's round trip to Redis.
const clockFireTimeout = 5 * time.Second

// fireScript enqueues a tick unless a tick at the same or a later time was
// already enqueued for the job. Immutable: safe to share.
//
//	KEYS[1] the job's clock mark, KEYS[2] the job list, KEYS[3] known jobs
//	ARGV[1] tick epoch seconds, ARGV[2] job JSON, ARGV[3] job name, ARGV[4] TTL
var fireScript = redis.NewScript(3, `
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) <= last then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
return 1
`)

// NewClock returns a Clock for cfg, not yet started. It fails when cfg is
// incomplete or a spec is invalid.
func NewClock(cfg ClockConfig) (*Clock, error) {
	if cfg.Pool == nil || cfg.Prefix == "" {
		return nil, errors.New("queues: clock: nil pool or empty prefix")
	}
	c := &Clock{pool: cfg.Pool, prefix: cfg.Prefix, log: orDiscard(cfg.Logger), now: cfg.Now}
	if c.now == nil {
		c.now = time.Now
	}
	for _, s := range cfg.Schedules {
		if s.Queue == "" || s.Job == "" {
			return nil, fmt.Errorf("queues: clock: schedule %q on queue %q: empty name", s.Job, s.Queue)
		}
		if strings.HasPrefix(strings.TrimSpace(s.Spec), "@every") {
			return nil, fmt.Errorf("queues: clock: %s: spec %q: @every is not supported", s.Job, s.Spec)
		}
		sched, err := cron.Parse(s.Spec)
		if err != nil {
			return nil, fmt.Errorf("queues: clock: %s: spec %q: %w", s.Job, s.Spec, err)
		}
		c.schedules = append(c.schedules, schedule{Schedule: s, cron: sched})
	}
	return c, nil
}

// Start starts firing the schedules. It returns at once; a Clock starts only
// once.
func (c *Clock) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil || c.stopped {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	for _, s := range c.schedules {
		c.done.Go(func() { c.loop(ctx, s) })
	}
}

// Stop stops the Clock and waits for a tick being enqueued. It may be called
// more than once.
func (c *Clock) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.cancel != nil {
		c.cancel()
	}
	c.done.Wait()
}

// loop fires s at each of its ticks until ctx is done. A tick missed while
// the process was stalled is skipped rather than fired late.
func (c *Clock) loop(ctx context.Context, s schedule) {
	next := s.cron.Next(c.now().UTC())
	for !next.IsZero() {
		timer := time.NewTimer(next.Sub(c.now()))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		c.fire(ctx, s, next)
		following := s.cron.Next(next)
		if now := c.now().UTC(); following.Before(now) {
			following = s.cron.Next(now)
		}
		next = following
	}
}

// fire enqueues the tick at t, unless another clock already did.
func (c *Clock) fire(ctx context.Context, s schedule, t time.Time) {
	epoch := t.Unix()
	ns := Namespace(c.prefix, s.Queue)
	job := &work.Job{Name: s.Job, ID: fmt.Sprintf("periodic:%s:%d", s.Job, epoch), EnqueuedAt: epoch}
	attrs := []any{"queue", s.Queue, "job", s.Job, "id", job.ID, "tick", t}
	raw, err := json.Marshal(job)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clockFireTimeout)
		defer cancel()
		var fired int
		fired, err = c.runScript(ctx, ns, s.Job, epoch, raw)
		if err == nil {
			c.log.Debug("clock tick", append(attrs, "enqueued", fired == 1)...)
			return
		}
	}
	c.log.Error("clock could not enqueue a tick", append(attrs, "error", err.Error())...)
}

// runScript runs fireScript for the tick epoch of job in namespace ns, with
// raw the job's JSON, and returns the script's answer.
func (c *Clock) runScript(ctx context.Context, ns, job string, epoch int64, raw []byte) (int, error) {
	conn, err := c.pool.GetContext(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return redis.Int(fireScript.DoContext(ctx, conn,
		ns+":clock:"+job, ns+":jobs:"+job, ns+":known_jobs",
		epoch, raw, job, int64(clockMarkTTL/time.Second)))
}
