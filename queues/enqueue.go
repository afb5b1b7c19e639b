package queues

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
)

// Enqueuer puts jobs on queues. It is safe for concurrent use.
type Enqueuer struct {
	pool   *redis.Pool
	prefix string

	mu      sync.Mutex
	byQueue map[string]*work.Enqueuer
}

// NewEnqueuer returns an Enqueuer writing to the queues under prefix (the
// JOBS_NAMESPACE, such as "actionkit") through pool. It panics when pool is
// nil or prefix is empty, which are programming errors.
func NewEnqueuer(pool *redis.Pool, prefix string) *Enqueuer {
	if pool == nil {
		panic("queues: NewEnqueuer: nil pool")
	}
	if prefix == "" {
		panic("queues: NewEnqueuer: empty prefix")
	}
	return &Enqueuer{pool: pool, prefix: prefix, byQueue: map[string]*work.Enqueuer{}}
}

// Enqueue puts the job named job with args on queue and returns its id,
// gocraft/work's 24 lowercase hex characters. Args must encode to JSON; a
// handler reads them back decoded from JSON (numbers become float64).
func (e *Enqueuer) Enqueue(queue, job string, args map[string]any) (id string, err error) {
	if queue == "" || job == "" {
		return "", errors.New("queues: enqueue: empty queue or job name")
	}
	j, err := e.enqueuer(queue).Enqueue(job, args)
	if j != nil {
		// gocraft returns the job together with an error when the job was
		// pushed but the known-jobs set (used by its web UI only) was not
		// updated: the job will run, so the caller must not see a failure.
		return j.ID, nil
	}
	return "", fmt.Errorf("queues: enqueue %s %s: %w", queue, job, err)
}

// EnqueuePublish enqueues V1PublishTask on PostQueue with the data
// {"postId": "<postID>"}.
func (e *Enqueuer) EnqueuePublish(postID uuid.UUID) (string, error) {
	return e.Enqueue(PostQueue, V1PublishTask, map[string]any{"postId": postID.String()})
}

// enqueuer returns the gocraft enqueuer of queue's namespace.
func (e *Enqueuer) enqueuer(queue string) *work.Enqueuer {
	e.mu.Lock()
	defer e.mu.Unlock()
	q, ok := e.byQueue[queue]
	if !ok {
		q = work.NewEnqueuer(Namespace(e.prefix, queue), e.pool)
		e.byQueue[queue] = q
	}
	return q
}
