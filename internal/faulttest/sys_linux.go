package faulttest

import "syscall"

// sysProcAttr runs a server as cred and has the kernel send it death when
// the test binary dies, so that no server outlives a killed test run.
func sysProcAttr(cred *syscall.Credential, death syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: death}
}
