//go:build unix && !linux

package faulttest

import "syscall"

// sysProcAttr runs a server as cred. Only Linux can end it when the test
// binary dies.
func sysProcAttr(cred *syscall.Credential, _ syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred}
}
