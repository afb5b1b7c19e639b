package dependency

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// ErrUnavailable is matched by errors.Is for every error marked by
// Unavailable.
var ErrUnavailable = errors.New("dependency unavailable")

// Error is a failure to reach the dependency Name. The request that met it
// may succeed later; nothing about it was wrong.
type Error struct {
	// Name names the dependency, such as "postgresql" or "redis"; it labels
	// metrics and logs.
	Name string
	// Err is the underlying failure, logged but never shown to a caller.
	Err error
}

// Unavailable marks err as a failure to reach the dependency name. It
// returns nil for a nil err.
func Unavailable(name string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Name: name, Err: err}
}

// Error returns "<name> unavailable: <cause>".
func (e *Error) Error() string { return e.Name + " unavailable: " + e.Err.Error() }

// Unwrap returns the underlying failure.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnavailable.
func (e *Error) Is(target error) bool { return target == ErrUnavailable }

// As returns the outermost *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Network reports whether err is a failure of the connection to a server
// rather than an answer from it: a refused, reset or timed-out connection,
// a connection closed under a request, or a deadline that ran out while
// waiting. A data layer marks such errors with Unavailable; it adds the
// answers of its own protocol that mean the same (a server shutting down).
// The caller going away (context.Canceled) is not an outage.
func Network(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH):
		return true
	}
	return false
}
