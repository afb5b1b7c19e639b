package queues

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// DefaultDeadAfter is how long a worker pool's heartbeat may be silent
// before the reaper of every Worker treats the pool as dead and requeues its
// in-progress jobs, when WorkerConfig.DeadAfter is zero. gocraft/work
// heartbeats every 5 s.
const DefaultDeadAfter = 20 * time.Second

// MinDeadAfter is the shortest DeadAfter a Worker accepts: two of gocraft's
// 5 s heartbeats, gocraft's own dead time. A shorter one would reap live
// pools whose heartbeat is a little late.
const MinDeadAfter = 10 * time.Second

// reapKeysPerJob is the number of keys the reap script takes per job name.
const reapKeysPerJob = 4

// reapScript requeues the in-progress jobs of one dead worker pool of a
// namespace, exactly as gocraft/work's dead pool reaper does, but in one
// atomic step that first checks, inside Redis, that the pool is still
// registered with a heartbeat older than the dead threshold:
//
//   - each in-progress job is moved back to its job list (RPOPLPUSH, so it
//     joins the end of the line unchanged, as gocraft does) and the job's
//     lock count and the pool's lock_info entry are decremented;
//   - what remains of the pool's lock_info entry is subtracted from the lock
//     count (never below zero) and removed, as gocraft's stale-lock cleanup;
//   - the heartbeat hash is deleted and the pool leaves the worker_pools set.
//
// A pool that has no heartbeat hash is left alone: a starting pool registers
// itself in worker_pools just before its first heartbeat, and its workers may
// already hold jobs. Several reapers (and gocraft's own) may run at once:
// each job is moved by exactly one RPOPLPUSH, and a reaper that comes second
// finds no heartbeat.
//
// KEYS[1] = <ns>:worker_pools
// KEYS[2] = <ns>:worker_pools:<pool>
// KEYS[3+4i .. 6+4i] = per job name: <ns>:jobs:<name>:<pool>:inprogress,
// <ns>:jobs:<name>, <ns>:jobs:<name>:lock, <ns>:jobs:<name>:lock_info
// ARGV[1] = the pool id
// ARGV[2] = now, epoch seconds by Redis's clock (TIME)
// ARGV[3] = the dead threshold in seconds
// ARGV[4] = the pool's job_names, as the keys were built from them
//
// It returns the number of jobs requeued, or -1 when the pool is not dead
// (or already reaped).
var reapScript = redis.NewScript(-1, `
local hb = redis.call('hmget', KEYS[2], 'heartbeat_at', 'job_names')
if not hb[1] or hb[2] ~= ARGV[4] then
  return -1
end
if tonumber(ARGV[2]) - tonumber(hb[1]) <= tonumber(ARGV[3]) then
  return -1
end
local pool = ARGV[1]
local moved = 0
for i = 3, #KEYS, 4 do
  local inprog, jobs, lock, info = KEYS[i], KEYS[i+1], KEYS[i+2], KEYS[i+3]
  while redis.call('rpoplpush', inprog, jobs) do
    redis.call('decr', lock)
    redis.call('hincrby', info, pool, -1)
    moved = moved + 1
  end
  local left = tonumber(redis.call('hget', info, pool))
  if left then
    redis.call('decrby', lock, left)
    redis.call('hdel', info, pool)
    if tonumber(redis.call('get', lock)) < 0 then
      redis.call('set', lock, 0)
    end
  end
end
redis.call('del', KEYS[2])
redis.call('srem', KEYS[1], pool)
return moved
`)

// reaper finds the dead worker pools of some namespaces and requeues their
// in-progress jobs. See reapScript and the package documentation.
type reaper struct {
	pool       *redis.Pool
	namespaces map[string]string // namespace -> queue, for logs
	deadAfter  time.Duration
	log        *slog.Logger

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// newReaper returns a reaper of namespaces (namespace to queue), not yet
// started.
func newReaper(pool *redis.Pool, namespaces map[string]string, deadAfter time.Duration, log *slog.Logger) *reaper {
	return &reaper{pool: pool, namespaces: namespaces, deadAfter: deadAfter, log: log,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// interval returns the wait before the next pass: a quarter of the dead
// threshold plus up to an eighth more, so that the Workers of a deployment
// do not all reap at the same instant.
func (r *reaper) interval() time.Duration {
	base := r.deadAfter / 4
	return base + rand.N(r.deadAfter/8)
}

// start runs the reaper's loop in the background.
func (r *reaper) start() { go r.loop() }

// halt stops the loop and waits for a running pass to end.
func (r *reaper) halt() {
	r.stopOnce.Do(func() { close(r.stop) })
	<-r.done
}

// loop runs a pass at each interval until halt.
func (r *reaper) loop() {
	defer close(r.done)
	timer := time.NewTimer(r.interval())
	defer timer.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-timer.C:
			if _, err := r.pass(); err != nil {
				r.log.Warn("dead worker pool reaper failed, will retry", "error", err.Error())
			}
			timer.Reset(r.interval())
		}
	}
}

// pass reaps every dead pool of the reaper's namespaces once and returns
// the number of jobs requeued.
func (r *reaper) pass() (int, error) {
	conn := r.pool.Get()
	defer conn.Close()
	now, err := redisNow(conn)
	if err != nil {
		return 0, err
	}
	total := 0
	var errs []error
	for ns, queue := range r.namespaces {
		n, err := r.reapNamespace(conn, ns, queue, now)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", queue, err))
		}
	}
	return total, errors.Join(errs...)
}

// redisNow is Redis's clock in epoch seconds: the one clock every reaper
// shares, whatever its host's.
func redisNow(conn redis.Conn) (float64, error) {
	t, err := redis.Int64s(conn.Do("TIME"))
	if err != nil || len(t) != 2 {
		return 0, fmt.Errorf("redis TIME: %v %v", t, err)
	}
	return float64(t[0]) + float64(t[1])/1e6, nil
}

// reapNamespace reaps every dead pool of ns, the namespace of queue, with
// now Redis's time, and returns the number of jobs requeued.
func (r *reaper) reapNamespace(conn redis.Conn, ns, queue string, now float64) (int, error) {
	poolsKey := ns + ":worker_pools"
	ids, err := redis.Strings(conn.Do("SMEMBERS", poolsKey))
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		hbKey := poolsKey + ":" + id
		v, err := redis.Strings(conn.Do("HMGET", hbKey, "heartbeat_at", "job_names", "host", "pid"))
		if err != nil {
			return total, err
		}
		beat, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || now-float64(beat) <= r.deadAfter.Seconds() {
			continue // no heartbeat (starting, stopping) or alive
		}
		var names []string
		if v[1] != "" {
			names = strings.Split(v[1], ",")
		}
		args := []any{2 + reapKeysPerJob*len(names), poolsKey, hbKey}
		for _, name := range names {
			jobs := ns + ":jobs:" + name
			args = append(args, jobs+":"+id+":inprogress", jobs, jobs+":lock", jobs+":lock_info")
		}
		args = append(args, id, strconv.FormatFloat(now, 'f', 6, 64),
			strconv.FormatFloat(r.deadAfter.Seconds(), 'f', 3, 64), v[1])
		moved, err := redis.Int(reapScript.Do(conn, args...))
		if err != nil {
			return total, err
		}
		if moved < 0 {
			continue // reaped by another reaper meanwhile
		}
		total += moved
		r.log.Warn("dead worker pool reaped: its in-progress jobs are back on the queue",
			"queue", queue, "pool", id, "host", v[2], "pid", v[3],
			"silentFor", time.Duration((now-float64(beat))*float64(time.Second)).Round(time.Second),
			"requeued", moved)
	}
	return total, nil
}
