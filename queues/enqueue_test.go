package queues

import (
	"encoding/json"
	"maps"
	"regexp"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/dependency"
)

func TestNamespace(t *testing.T) {
	if got, want := Namespace("actionkit", PostQueue), "actionkit:PostQueue"; got != want {
		t.Errorf("Namespace: got %q, want %q", got, want)
	}
}

func TestEnqueuePublish(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	e := NewEnqueuer(pool, prefix)
	postID := uuid.Must(uuid.NewV7())

	id, err := e.EnqueuePublish(postID)
	if err != nil {
		t.Fatalf("EnqueuePublish: %v", err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(id) {
		t.Errorf("job id: got %q, want 24 lowercase hex characters", id)
	}

	conn := pool.Get()
	defer conn.Close()
	key := prefix + ":PostQueue:jobs:V1PublishTask"
	raw, err := redis.ByteSlices(conn.Do("LRANGE", key, 0, -1))
	if err != nil || len(raw) != 1 {
		t.Fatalf("LRANGE %s: got %d entries (%v), want 1", key, len(raw), err)
	}
	var job struct {
		Name string         `json:"name"`
		ID   string         `json:"id"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal(raw[0], &job); err != nil {
		t.Fatalf("job JSON %s: %v", raw[0], err)
	}
	if job.Name != V1PublishTask || job.ID != id {
		t.Errorf("job: got name %q id %q, want %q %q", job.Name, job.ID, V1PublishTask, id)
	}
	if want := map[string]any{"postId": postID.String()}; !maps.Equal(job.Args, want) {
		t.Errorf("job args: got %v, want %v", job.Args, want)
	}
}

func TestEnqueueRefusesEmptyNames(t *testing.T) {
	t.Parallel()
	prefix, pool := setup(t)
	e := NewEnqueuer(pool, prefix)
	for _, tc := range []struct{ name, queue, job string }{
		{"no queue", "", V1PublishTask},
		{"no job", PostQueue, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if id, err := e.Enqueue(tc.queue, tc.job, nil); err == nil {
				t.Errorf("Enqueue(%q, %q): got id %q, want an error", tc.queue, tc.job, id)
			}
		})
	}
}

// TestEnqueueMarksAnUnreachableRedis: with Redis refusing connections the
// error is marked dependency.ErrUnavailable, named redis.
func TestEnqueueMarksAnUnreachableRedis(t *testing.T) {
	t.Parallel()
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", "127.0.0.1:1") }}
	defer pool.Close()
	_, err := NewEnqueuer(pool, "actionkit").EnqueuePublish(uuid.Must(uuid.NewV7()))
	if e, ok := dependency.As(err); !ok || e.Name != Dependency {
		t.Errorf("got %v, want an error marked unavailable", err)
	}
	if !Unreachable(redis.Error("LOADING Redis is loading the dataset in memory")) || Unreachable(redis.Error("ERR unknown command")) {
		t.Error("server replies misclassified")
	}
}
