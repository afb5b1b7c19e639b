package queues

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/dependency"
)

// Dependency names Redis in the errors marked unavailable
// (dependency.Error.Name), and so in metrics and logs.
const Dependency = "redis"

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
// handler reads them back decoded from JSON (numbers become float64). When
// Redis is unreachable the error is marked with dependency.Unavailable.
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
	err = fmt.Errorf("queues: enqueue %s %s: %w", queue, job, err)
	if Unreachable(err) {
		err = dependency.Unavailable(Dependency, err)
	}
	return "", err
}

// Unreachable reports whether err means that Redis could not be reached
// or would not serve: a connection refused, reset, closed or timed out, an
// exhausted pool, or a server still loading its dataset, blocked by a
// script or without its primary (LOADING, BUSY, MASTERDOWN). Enqueue marks
// such errors with dependency.Unavailable.
func Unreachable(err error) bool {
	if dependency.Network(err) || errors.Is(err, redis.ErrPoolExhausted) {
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		code, _, _ := strings.Cut(string(re), " ")
		return code == "LOADING" || code == "BUSY" || code == "MASTERDOWN"
	}
	return false
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
