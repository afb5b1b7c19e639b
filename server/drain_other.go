//go:build !linux

package main

import "net"

// refuseHandshakes is not available here: the closing listener accepts
// until the queue stays empty for acceptDrainWait, or for acceptDrainMax.
func refuseHandshakes(*net.TCPListener) bool { return false }

// acceptQueueEmpty cannot read the queue here: an Accept that timed out is
// taken for an empty queue.
func acceptQueueEmpty(*net.TCPListener) bool { return true }
