package faulttest

import "syscall"

// sysProcAttr runs a server as cred and has the kernel end it when the
// test binary dies, so that no server outlives a killed test run (SIGQUIT
// is PostgreSQL's immediate shutdown and ends Redis too).
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
}
