package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// refuseHandshakes makes the kernel drop every new connection attempt to
// the listener (a SYN without ACK) while handshakes already under way
// complete into the accept queue, so that the queue can be emptied before
// the socket closes. It attaches a classic BPF socket filter, which TCP
// runs on each segment at the TCP header; a dropped SYN is retried by its
// client a second later and then refused by the closed port. It reports
// whether the filter is in place.
func refuseHandshakes(ln *net.TCPListener) bool {
	const flagsOffset, synAck, syn = 13, 0x12, 0x02
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_B | unix.BPF_ABS, K: flagsOffset},
		{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: synAck},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: syn, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0},          // a new handshake: drop
		{Code: unix.BPF_RET | unix.BPF_K, K: 0xffffffff}, // anything else: keep
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return controlListener(ln, func(fd int) error {
		return unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fprog)
	})
}

// acceptQueueEmpty reports whether the listener's accept queue holds no
// connection, by the kernel's count (TCP_INFO's tcpi_unacked on a
// listening socket); true when the count cannot be read.
func acceptQueueEmpty(ln *net.TCPListener) bool {
	var queued uint32
	ok := controlListener(ln, func(fd int) error {
		info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err == nil {
			queued = info.Unacked
		}
		return err
	})
	return !ok || queued == 0
}

// controlListener runs f on the listener's descriptor and reports whether
// both succeeded.
func controlListener(ln *net.TCPListener, f func(fd int) error) bool {
	rc, err := ln.SyscallConn()
	if err != nil {
		return false
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return false
	}
	return ferr == nil
}
