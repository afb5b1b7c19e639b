// Package redislog routes the log lines of go-redis (github.com/redis/go-redis/v9),
// which it otherwise prints to stderr as plain text, into a log/slog logger.
//
// go-redis has one logger per process. Install replaces it once with a
// forwarder; SetLogger chooses where the forwarder writes and may be called
// at any time. A line caused by a connection that was closed on purpose
// (this process closing its client or subscription) is logged at debug
// level; every other line, such as a failure to dial, at warn level.
package redislog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// Message is the slog message of every forwarded line; the line itself is
// the attribute "detail".
const Message = "redis client"

var (
	installOnce sync.Once
	target      atomic.Pointer[slog.Logger]
)

// Install makes go-redis log through this package. Only the first call
// acts. Call it before any client exists (from an init function), since
// go-redis reads its logger without synchronisation. Until SetLogger is
// called, lines go to slog.Default().
func Install() {
	installOnce.Do(func() { goredis.SetLogger(forwarder{}) })
}

// SetLogger makes the forwarder write to l; nil means slog.Default().
func SetLogger(l *slog.Logger) { target.Store(l) }

type forwarder struct{}

// Printf implements go-redis's logging interface.
func (forwarder) Printf(ctx context.Context, format string, v ...any) {
	l := target.Load()
	if l == nil {
		l = slog.Default()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	line := fmt.Sprintf(format, v...)
	level := slog.LevelWarn
	if closedOnPurpose(line, v) {
		level = slog.LevelDebug
	}
	l.Log(ctx, level, Message, "detail", line)
}

// closedOnPurpose reports whether a line is about a connection or client
// that this process closed: net.ErrClosed ("use of closed network
// connection"), go-redis's ErrClosed, or a cancelled context.
func closedOnPurpose(line string, v []any) bool {
	for _, a := range v {
		if err, ok := a.(error); ok &&
			(errors.Is(err, net.ErrClosed) || errors.Is(err, goredis.ErrClosed) || errors.Is(err, context.Canceled)) {
			return true
		}
	}
	return strings.Contains(line, "use of closed network connection") || strings.Contains(line, goredis.ErrClosed.Error())
}
