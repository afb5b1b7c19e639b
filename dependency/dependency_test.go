package dependency_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/actionkit/actionkit/dependency"
)

func TestUnavailableIsFoundThroughWrapping(t *testing.T) {
	if dependency.Unavailable("redis", nil) != nil {
		t.Error("Unavailable(nil) is not nil")
	}
	cause := errors.New("connection refused")
	err := fmt.Errorf("enqueue: %w", dependency.Unavailable("redis", cause))
	e, ok := dependency.As(err)
	if !ok || e.Name != "redis" || !errors.Is(err, dependency.ErrUnavailable) || !errors.Is(err, cause) {
		t.Errorf("As = %v, %v; Is(ErrUnavailable) = %v", e, ok, errors.Is(err, dependency.ErrUnavailable))
	}
	if err.Error() != "enqueue: redis unavailable: connection refused" {
		t.Errorf("Error() = %q", err.Error())
	}
	if _, ok := dependency.As(errors.New("a bug")); ok || errors.Is(errors.New("x"), dependency.ErrUnavailable) {
		t.Error("an unmarked error is found unavailable")
	}
}

func TestNetwork(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused", fmt.Errorf("open: %w", refused), true},
		{"reset", syscall.ECONNRESET, true},
		{"eof", io.ErrUnexpectedEOF, true},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{"caller went away", context.Canceled, false},
		{"a bug", errors.New(`pq: syntax error at or near "SELEC"`), false},
		{"nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dependency.Network(tc.err); got != tc.want {
				t.Errorf("Network(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
