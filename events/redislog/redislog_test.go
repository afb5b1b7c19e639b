package redislog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/actionkit/actionkit/internal/syncbuf"
)

func init() { Install() }

// buffer is a log sink safe for concurrent use.
type buffer struct{ syncbuf.Buffer }

// lines returns the JSON records written so far.
func (b *buffer) lines(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		out = append(out, m)
	}
	return out
}

// capture routes go-redis's log to a JSON logger at level for the test.
// The tests of this package are not parallel: the logger is per process.
func capture(t *testing.T, level slog.Level) *buffer {
	b := &buffer{}
	SetLogger(slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level})))
	t.Cleanup(func() { SetLogger(nil) })
	return b
}

// TestRealTroubleIsLogged dials a port nothing listens on with a real
// client: go-redis's report of the failure must reach the JSON log at warn
// level.
func TestRealTroubleIsLogged(t *testing.T) {
	b := capture(t, slog.LevelInfo)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	rc := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rc.Ping(ctx).Err(); err == nil {
		t.Fatal("ping of a closed port succeeded")
	}
	var found bool
	for _, m := range b.lines(t) {
		if m["msg"] == Message && m["level"] == "WARN" && strings.Contains(fmt.Sprint(m["detail"]), "connection refused") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no warn line about the refused connection in %v", b.lines(t))
	}
}

// TestExpectedCloseIsQuiet closes a client while a subscription is reading
// from the real Redis: nothing may be logged at info level or above. The
// line older go-redis printed then is checked too, as go-redis formats it.
func TestExpectedCloseIsQuiet(t *testing.T) {
	b := capture(t, slog.LevelInfo)
	rc := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sub := rc.Subscribe(ctx, "redislog-test-"+fmt.Sprint(time.Now().UnixNano()))
	if _, err := sub.Receive(ctx); err != nil { // the subscription confirmation
		t.Fatalf("subscribe: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := sub.ReceiveMessage(ctx); done <- err }()
	_ = sub.Close()
	_ = rc.Close()
	if err := <-done; err == nil {
		t.Fatal("ReceiveMessage returned no error after Close")
	}
	closed := &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}
	forwarder{}.Printf(ctx, "redis: discarding bad PubSub connection: %s", closed)
	forwarder{}.Printf(ctx, "redis: discarding bad PubSub connection: %s", fmt.Errorf("wrapped: %w", goredis.ErrClosed))
	if lines := b.lines(t); len(lines) != 0 {
		t.Fatalf("an expected close was logged: %v", lines)
	}

	// The same lines are still there at debug level.
	debug := capture(t, slog.LevelDebug)
	forwarder{}.Printf(ctx, "redis: discarding bad PubSub connection: %s", closed)
	if lines := debug.lines(t); len(lines) != 1 || lines[0]["level"] != "DEBUG" {
		t.Fatalf("debug lines: %v", lines)
	}
	// Other errors are warnings.
	warn := capture(t, slog.LevelInfo)
	forwarder{}.Printf(ctx, "redis: discarding bad PubSub connection: %s", errors.New("i/o timeout"))
	if lines := warn.lines(t); len(lines) != 1 || lines[0]["level"] != "WARN" {
		t.Fatalf("warn lines: %v", lines)
	}
}
