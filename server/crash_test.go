package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// recoveryBound is how long after a worker's crash its in-progress jobs must
// be done by the surviving workers: docs/jobs.md puts them back on their
// queue within about half a minute, and running them takes the rest.
const recoveryBound = 60 * time.Second

// TestKilledWorkersJobsRunOnSurvivor kills a worker process while it runs
// four publish jobs, each blocked in the database, and checks that the
// worker process that keeps running publishes all four within a minute, each
// exactly once. gocraft/work alone leaves them for up to 10 minutes: its own
// reaper runs 10 s after a pool starts, then every 10 minutes.
func TestKilledWorkersJobsRunOnSurvivor(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "WORKER_DEAD_AFTER=10s", "LOG_LEVEL=info")
	ns := queues.Namespace(env["JOBS_NAMESPACE"], queues.PostQueue)
	rpool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.DialURL(env["REDIS_URL"]) }}
	defer rpool.Close()
	conn := rpool.Get()
	defer conn.Close()

	api := startProcess(t, env, "api").asServer(t)
	u := register(t, api.client(), "web")
	feed := feedClient(t, api, u)
	var posts []string
	for i := range 4 {
		id := createPost(t, u, fmt.Sprintf("Crash %d", i))
		u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": id, "async": true}, u.auth()...).want(t, 202, "")
		posts = append(posts, id)
	}

	// Hold the posts table so that the jobs block on their first statement,
	// which reads the post: a job killed there has done nothing.
	db, err := models.Open(t.Context(), env["DATABASE_URL"], 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hold, err := db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.Exec(`LOCK TABLE posts IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}

	doomed := startProcess(t, env, "worker") // WORKER_CONCURRENCY 4: it takes all four
	doomedPool := waitForPool(t, conn, ns, doomed.cmd.Process.Pid)
	inProgress := ns + ":jobs:" + queues.V1PublishTask + ":" + doomedPool + ":inprogress"
	poll.Until(t, 30*time.Second, "the worker to hold the 4 jobs, blocked in the database", func() bool {
		n, _ := redis.Int(conn.Do("LLEN", inProgress))
		return n == 4 && lockWaiters(t, db) == 4
	})

	survivor := startProcess(t, env, "worker")
	survivorPool := waitForPool(t, conn, ns, survivor.cmd.Process.Pid)
	// gocraft's own reaper makes one pass 10 s after a pool starts: that is
	// the case of a worker starting after the crash, not this one. Let the
	// survivor's pass go by while the doomed worker is alive.
	started, err := redis.Int64(conn.Do("HGET", ns+":worker_pools:"+survivorPool, "started_at"))
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "gocraft's start-up reap of the survivor to be over", func() bool {
		return time.Now().Unix() >= started+13
	})
	if n, _ := redis.Int(conn.Do("LLEN", ns+":jobs:"+queues.V1PublishTask)); n != 0 {
		t.Fatalf("%d jobs still queued: the doomed worker should hold them all", n)
	}

	doomed.kill(t)
	killed := time.Now()
	if err := hold.Rollback(); err != nil { // the dead worker's statements fail on its closed sockets
		t.Fatal(err)
	}

	ctx, cancel := context.WithDeadline(t.Context(), killed.Add(recoveryBound))
	defer cancel()
	for _, id := range posts {
		if _, err := feed.WaitFor(ctx, "event", publishedEvent(id)); err != nil {
			stuck, _ := redis.Int(conn.Do("LLEN", inProgress))
			t.Fatalf("post %s not published within %v of the crash (%d jobs still in the killed pool's in-progress list): %v\nsurvivor logs:\n%s",
				id, recoveryBound, stuck, err, survivor.logs.String())
		}
	}
	t.Logf("the 4 jobs of the killed worker were done %v after the kill", time.Since(killed).Round(100*time.Millisecond))

	// Exactly once: when nothing is queued, retried or running any more, a
	// fifth post published by the survivor is the last event; nothing else
	// about the four may come before it.
	poll.Until(t, 20*time.Second, "every job of the queue to be finished", func() bool {
		return queueIdle(t, conn, ns)
	})
	sentinel := createPost(t, u, "Sentinel")
	u.c.call(http.MethodPost, "/v1/posts/publish", map[string]any{"postId": sentinel, "async": true}, u.auth()...).want(t, 202, "")
	if _, err := feed.WaitFor(waitCtx(t), "event", publishedEvent(sentinel)); err != nil {
		t.Fatalf("the sentinel post was not published: %v", err)
	}
	done, cancelDone := context.WithCancel(t.Context())
	cancelDone()
	for _, id := range posts {
		if m, err := feed.WaitFor(done, "event", publishedEvent(id)); err == nil {
			t.Errorf("POST_PUBLISHED of %s came twice: %s", id, m.Line)
		}
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM posts WHERE id = ANY($1::uuid[]) AND status = 'published'`,
		"{"+strings.Join(posts, ",")+"}"); err != nil || n != 4 {
		t.Errorf("published posts: got %d, %v; want 4", n, err)
	}

	// The dead pool is gone; the survivor's is untouched.
	pools, _ := redis.Strings(conn.Do("SMEMBERS", ns+":worker_pools"))
	if strings.Join(pools, ",") != survivorPool {
		t.Errorf("worker pools: got %v, want only the survivor's %s", pools, survivorPool)
	}
	logs := survivor.logs.String()
	if !strings.Contains(logs, `"pool":"`+doomedPool+`"`) || !strings.Contains(logs, `"requeued":4`) ||
		!strings.Contains(logs, `"pid":"`+strconv.Itoa(doomed.cmd.Process.Pid)+`"`) {
		t.Errorf("the survivor did not log the reap of %s:\n%s", doomedPool, logs)
	}
}

// publishedEvent matches the POST_PUBLISHED event of postID.
func publishedEvent(postID string) func(sockettest.Message) bool {
	return func(m sockettest.Message) bool {
		return m.Event == "POST_PUBLISHED" && strings.Contains(string(m.Payload), postID)
	}
}

// waitForPool waits for the gocraft worker pool of namespace ns run by the
// process pid to heartbeat, and returns its id.
func waitForPool(t *testing.T, conn redis.Conn, ns string, pid int) string {
	t.Helper()
	var id string
	poll.Until(t, 30*time.Second, fmt.Sprintf("a worker pool of process %d", pid), func() bool {
		ids, _ := redis.Strings(conn.Do("SMEMBERS", ns+":worker_pools"))
		for _, p := range ids {
			if v, _ := redis.String(conn.Do("HGET", ns+":worker_pools:"+p, "pid")); v == strconv.Itoa(pid) {
				id = p
				return true
			}
		}
		return false
	})
	return id
}

// lockWaiters counts the sessions of the test's database waiting for a lock.
func lockWaiters(t *testing.T, db *sqlx.DB) int {
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
		t.Fatal(err)
	}
	return n
}

// queueIdle reports whether namespace ns has no job queued, running,
// scheduled for a retry or dead.
func queueIdle(t *testing.T, conn redis.Conn, ns string) bool {
	if n, _ := redis.Int(conn.Do("LLEN", ns+":jobs:"+queues.V1PublishTask)); n != 0 {
		return false
	}
	running, err := redis.Strings(conn.Do("KEYS", ns+":jobs:*:inprogress"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range running {
		if n, _ := redis.Int(conn.Do("LLEN", k)); n != 0 {
			return false
		}
	}
	retry, _ := redis.Int(conn.Do("ZCARD", ns+":retry"))
	dead, _ := redis.Int(conn.Do("ZCARD", ns+":dead"))
	return retry == 0 && dead == 0
}
