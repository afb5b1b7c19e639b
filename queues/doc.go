// Package queues names the background queues and jobs and runs them on
// gocraft/work (v0.5.1, over redigo).
//
// # Queues are namespaces
//
// gocraft/work has no queue apart from the job name, so a queue is a
// gocraft namespace: Namespace(prefix, queue) = prefix + ":" + queue. With
// the prefix "actionkit" the publish job lives in
//
//	actionkit:PostQueue:jobs:V1PublishTask   (list; gocraft's job JSON)
//	actionkit:PostQueue:retry, :dead, ...     (gocraft's sets)
//
// An Enqueuer puts jobs on a queue and returns gocraft's 24-hex job id; a
// Worker consumes them with one gocraft WorkerPool per queue.
//
// # Worker
//
// A Worker runs WorkerConfig.Concurrency jobs at once on each queue and
// retries a failed job with gocraft's back-off. Every failed attempt is
// logged at WARN ("job failed"); the last one (Job.MaxFails, default 4) is
// also logged at ERROR as "job dead", and gocraft moves the job to the
// dead set. The Worker recovers a panic itself, so that it is logged at
// ERROR with its stack (gocraft would only print it), and counts it as a
// failure.
//
// A Handler gets the Worker's context through a closure, because gocraft
// builds each job's "context struct" by reflection and cannot pass a
// context.Context. Stop cancels that context and waits for the running
// jobs to return. gocraft's loop may fetch one more job before it sees the
// stop; that job is pushed back to the head of its list unchanged, so a
// shutdown never costs a job an attempt. There is no Drain: a stopped
// Worker leaves the queue to the next one.
//
// # Crashed workers
//
// Each Worker also requeues the jobs of worker pools that died without
// stopping (SIGKILL, OOM, a lost host). gocraft keeps a pool's running jobs
// in <ns>:jobs:<name>:<pool>:inprogress and its heartbeat, written every
// 5 s, in <ns>:worker_pools:<pool>; its own reaper recovers a dead pool's
// jobs only when a pool starts and then every 10 minutes.
//
// The Worker's reaper runs every DeadAfter/4 plus up to DeadAfter/8 of
// jitter. A pool whose heartbeat is older than WorkerConfig.DeadAfter
// (default 20 s), by Redis's clock, is dead: one Lua script (reapScript)
// re-checks that inside Redis and, in one atomic step, moves each of its
// in-progress jobs back to the end of its job list unchanged, fixes the
// lock counts and removes the pool, as gocraft's reaper does. So several
// reapers at once requeue each job once, and a pool with a fresh heartbeat
// is never touched. A requeued job runs again from the start with the same
// attempt count, so jobs must be idempotent; a live pool that stalls past
// DeadAfter would have its jobs run twice. docs/jobs.md gives the timings.
//
// # Clock
//
// A Clock enqueues periodic jobs, and any number of clocks may run at once:
// each tick is enqueued exactly once. A Clock is a small loop per schedule
// (robfig/cron v1, the parser gocraft uses: seconds first, in UTC). At each
// tick one Lua script compares the tick with the job's mark,
// <prefix>:<queue>:clock:<job>, the epoch of the latest tick enqueued. Only
// a later tick goes on: in the same atomic step the mark moves forward and
// the job is pushed onto <prefix>:<queue>:jobs:<job> as gocraft's JSON (id
// "periodic:<job>:<epoch>"), where any Worker of the queue picks it up.
// The mark expires after a day; a tick missed while no clock ran is not
// fired later.
//
// gocraft's own periodic enqueuer (WorkerPool.PeriodicallyEnqueue) is not
// used, for three reasons found in its source:
//
//   - It exists only on a WorkerPool, whose Start also moves due retries of
//     the whole namespace, and sends to the dead set every job whose name
//     that pool did not register. A clock-only pool would kill periodic
//     jobs or retries of the queue's other jobs, and it would heartbeat as
//     a worker.
//   - It de-duplicates by adding identical entries to the scheduled set.
//     Once a requeuer has moved a due entry to the job list, a clock adding
//     the same tick again (its host a second behind another's, say)
//     creates a second job.
//   - "@every" specs give each process its own ticks.
//
// Tests run against a real Redis (REDIS_URL, default 127.0.0.1:6379), each
// under its own key prefix.
package queues
