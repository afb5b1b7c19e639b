//go:build !linux

package main

import (
	"context"
	"net"
	"time"
)

// quiesceListener does nothing outside Linux: there the listener simply
// closes, and connections still in its accept queue may be reset.
func quiesceListener(context.Context, net.Listener, time.Duration) error { return nil }
