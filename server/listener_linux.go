//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// quiesceListener stops the kernel from completing new connections on ln
// and waits until the ones it has already completed have been accepted,
// so that closing ln then resets none of them.
//
// Closing a listening socket resets every connection still in its accept
// queue: to their clients the connection succeeded and the request was
// sent, then it is reset. A socket filter that drops every packet is
// attached first that drops new SYNs, so those clients retry after a
// second and are refused by the closed port, the ordinary "instance gone"
// failure; handshakes already under way complete. The accept queue must
// then stay empty for handshakeSettle, read from TCP_INFO (tcpi_unacked,
// for a listening socket).
// handshakeSettle is how long the accept queue must stay empty before the
// listener closes: enough for a handshake under way to complete on a local
// network.
const handshakeSettle = 50 * time.Millisecond

func quiesceListener(ctx context.Context, ln net.Listener, wait time.Duration) error {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	// At the filter, offset 0 is the TCP header; byte 13 holds its flags.
	// Drop a SYN without ACK (a new connection), accept all else, so the
	// handshakes under way still complete and join the accept queue.
	drop := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_B | unix.BPF_ABS, K: 13},
		{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0x12},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: 0x02, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0xffffffff},
	}
	if err := rc.Control(func(fd uintptr) {
		opErr = unix.SetsockoptSockFprog(int(fd), unix.SOL_SOCKET, unix.SO_ATTACH_FILTER,
			&unix.SockFprog{Len: uint16(len(drop)), Filter: &drop[0]})
	}); err != nil {
		return err
	}
	if opErr != nil {
		return fmt.Errorf("attaching the drop filter: %w", opErr)
	}
	deadline := time.Now().Add(wait)
	var emptySince time.Time
	for {
		var queued uint32
		if err := rc.Control(func(fd uintptr) {
			var info *unix.TCPInfo
			if info, opErr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); opErr == nil {
				queued = info.Unacked
			}
		}); err != nil {
			return err
		}
		if opErr != nil {
			return fmt.Errorf("reading the accept queue: %w", opErr)
		}
		switch {
		case queued > 0:
			emptySince = time.Time{}
		case emptySince.IsZero():
			emptySince = time.Now()
		case time.Since(emptySince) >= handshakeSettle:
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d connections still queued: %w", queued, syscall.ETIMEDOUT)
		}
		// The kernel offers no event for an emptied accept queue; the
		// server's accept loop empties it within microseconds to
		// milliseconds, so a short poll is enough.
		time.Sleep(time.Millisecond)
	}
}
