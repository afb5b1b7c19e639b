//go:build unix

package npmpkg

import (
	"os"
	"syscall"
)

// withFileLock runs fn holding an exclusive flock on path, so that test
// processes of several packages do not install node_modules at once.
func withFileLock(path string, fn func() error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}
