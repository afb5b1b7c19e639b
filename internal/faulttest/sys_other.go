//go:build unix && !linux

package faulttest

import "syscall"

// sysProcAttr runs a server as cred.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred}
}
