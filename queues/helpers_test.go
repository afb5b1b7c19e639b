package queues

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/gomodule/redigo/redis"
)

// waitLimit bounds every wait for something to happen. gocraft's idle
// workers poll with a back-off of up to 5 s and its retrier ticks every
// second, so a job may start several seconds after it is due.
const waitLimit = 15 * time.Second

// setup returns a Redis pool and a key prefix of the test's own, without the
// trailing colon of redistest's prefix, as the queues' prefix.
func setup(t *testing.T) (prefix string, pool *redis.Pool) {
	t.Helper()
	_, p, pool := redistest.New(t)
	return strings.TrimSuffix(p, ":"), pool
}

// recorder is a slog.Handler keeping every record, for assertions on logs.
type recorder struct {
	mu      sync.Mutex
	records []slog.Record
	changed chan struct{} // closed and replaced on each record
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) logger() *slog.Logger { return slog.New(r) }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// all returns the records with message msg.
func (r *recorder) all(msg string) []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Record
	for _, rec := range r.records {
		if rec.Message == msg {
			out = append(out, rec)
		}
	}
	return out
}

// waitFor waits until cond, evaluated after each new record, holds.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waited %v for %s", waitLimit, what)
		}
	}
}

// waitRecord waits for a record with message msg and returns the first.
func (r *recorder) waitRecord(t *testing.T, msg string) slog.Record {
	t.Helper()
	r.waitFor(t, "log record "+msg, func() bool { return len(r.all(msg)) > 0 })
	return r.all(msg)[0]
}

// attr returns the value of the record's attribute key.
func attr(rec slog.Record, key string) (v slog.Value, ok bool) {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v, ok = a.Value, true
			return false
		}
		return true
	})
	return v, ok
}

// receive waits for a value on ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("waited %v for %s", waitLimit, what)
		panic("unreachable")
	}
}
