// Package queues names the background queues and jobs and runs them on
// gocraft/work (v0.5.1, over redigo).
//
// # Queues are namespaces
//
// gocraft/work has no queue separate from the job name, so a queue is a
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
// Each queue gets WorkerConfig.Concurrency workers. Every failed attempt is
// logged at WARN ("job failed") and retried with gocraft's back-off; the
// last one (Job.MaxFails, default 4) is also logged at ERROR as "job dead"
// with the queue, job name, id, args and error, and gocraft moves the job to
// the dead set. A
// panic is recovered by the Worker itself, logged at ERROR with its stack and
// counted as a failure (gocraft would recover it too, but only print it to
// standard output).
//
// gocraft creates a value of its "context struct" for each job by reflection
// and offers no way to pass a context.Context; its context struct here is
// empty, and a Handler receives the Worker's context through a closure
// instead. Stop cancels that context, then calls each pool's Stop, which
// returns only when the job each worker is running has returned (its
// worker.stop hands a signal to the worker loop, which reads it only between
// jobs). gocraft's loop may still fetch one more job before it sees the
// signal; such a job is pushed back to the head of its list unchanged
// instead of running with a cancelled context, so a shutdown never costs a
// job an attempt. There is no Drain: a stopped Worker leaves the queue to the
// next one.
//
// # Crashed workers
//
// gocraft keeps the jobs a pool's workers are running in a list per pool,
// <ns>:jobs:<name>:<pool>:inprogress, and each pool writes a heartbeat hash
// <ns>:worker_pools:<pool> (heartbeat_at, job_names, host, pid...) every 5 s
// and is a member of <ns>:worker_pools. When a process dies without
// stopping (SIGKILL, OOM, a lost host) its jobs stay in those lists. gocraft's
// own reaper requeues them, but it runs only 10 s after a pool starts and
// then every 10 minutes: with the surviving workers already running, the
// jobs waited up to 10 minutes.
//
// Each Worker therefore also runs a reaper of its own over its queues, every
// DeadAfter/4 plus up to DeadAfter/8 of jitter (5 to 7.5 s by default). A
// pool whose heartbeat_at is older than WorkerConfig.DeadAfter (default
// 20 s, four missed heartbeats; at least MinDeadAfter), by Redis's clock, is
// dead: one Lua script (see reapScript) re-checks that inside Redis, moves
// each in-progress job back to its job list unchanged, fixes the lock and
// lock_info counts and removes the pool, exactly as gocraft's reaper does,
// in one atomic step. Several Workers reaping at once (and gocraft's own
// reaper) therefore requeue each job once, and a pool with a fresh heartbeat
// is never touched. A killed worker's jobs are back on their queue at most
// DeadAfter + 1 s (heartbeat_at has whole seconds) + 7.5 s after the kill,
// about 29 s by default, and an idle worker polls them within 5 s more.
// They join the end of the line, as with gocraft, and are re-run from the
// start with the same attempt count: jobs must be idempotent. A live pool
// whose heartbeat stalls past DeadAfter would have its running jobs run a
// second time.
//
// # Clock
//
// gocraft's own periodic enqueuer (WorkerPool.PeriodicallyEnqueue) was
// studied and not used, for three reasons found in its source:
//
//   - It exists only on a WorkerPool. A pool with concurrency 0 consumes
//     nothing, but its Start also runs a "scheduler" and a "retrier" that move
//     due jobs of the namespace's scheduled and retry sets to their lists, and
//     a job whose name that pool did not register goes to the dead set with
//     "unknown job when requeueing". A clock-only pool that registers no
//     handler therefore kills about half the periodic jobs (it races the
//     worker's pools), and one that registers only the scheduled names kills
//     retries of the queue's other jobs. It also heartbeats as a worker pool
//     and overwrites each job's max_concurrency key.
//   - Its de-duplication is idempotent ZADDs of byte-identical entries (id
//     "periodic:<name>:<spec>:<epoch>", EnqueuedAt = epoch) into the scheduled
//     set, done for every tick of the next 4 minutes. Once a requeuer has
//     moved a due entry to the job list, a clock that adds the same tick again
//     creates a second job: that happens when a clock's host runs a second or
//     more behind another's, or when a refresh computed "now" just before a
//     tick and wrote just after it.
//   - "@every" specs give each process its own ticks.
//
// A Clock is instead a small loop per schedule (robfig/cron v1, the parser
// gocraft uses: seconds first, evaluated in UTC). At each tick it runs one
// Lua script that compares the tick with a per-job mark,
// <prefix>:<queue>:clock:<job>, holding the epoch of the latest tick
// enqueued; only a later tick is enqueued, and in the same atomic step the
// mark moves forward and the job is LPUSHed straight onto
// <prefix>:<queue>:jobs:<job> as gocraft's JSON (id "periodic:<job>:<epoch>",
// EnqueuedAt the tick), where any Worker of the queue picks it up. Two or
// more clocks, even with hosts seconds apart, therefore enqueue each tick
// once, and a clock process has no worker pool at all. The mark expires
// after a day. A tick missed while no clock ran is not fired later.
//
// Tests run against a real Redis (REDIS_URL, default 127.0.0.1:6379), each
// under its own key prefix.
package queues
