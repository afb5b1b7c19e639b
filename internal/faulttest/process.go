package faulttest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/testenv"
)

// Timeouts of the harness. Generous: the machine may be busy.
const (
	startTimeout = 30 * time.Second
	stopTimeout  = 30 * time.Second
)

// process is one run of a server binary: started by start, ended by stop.
type process struct {
	name string // for messages: "postgres", "redis-server"
	log  string // file receiving the server's output

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// start runs argv in the directory of p.log with its output appended to
// p.log, as cred when not nil; death is the signal the server gets if the
// test binary dies first.
func (p *process) start(cred *syscall.Credential, death syscall.Signal, argv ...string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("faulttest: %s is already running", p.name)
	}
	out, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = filepath.Dir(p.log)
	cmd.SysProcAttr = sysProcAttr(cred, death)
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("faulttest: start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		out.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	return nil
}

// exited reports whether the process has ended on its own.
func (p *process) exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig and waits for the process to end; past stopTimeout it
// kills it and reports the failure. Stopping a stopped process is a no-op.
func (p *process) stop(sig os.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return nil
	}
	cmd, done := p.cmd, p.done
	p.cmd, p.done = nil, nil
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
		return nil
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("faulttest: %s did not stop within %s of %v; killed", p.name, stopTimeout, sig)
	}
}

// output returns the server's log, for failure messages.
func (p *process) output() string {
	raw, _ := os.ReadFile(p.log)
	if len(raw) > 4000 {
		raw = raw[len(raw)-4000:]
	}
	return string(raw)
}

// waitUntil polls ready every 20 ms until it succeeds, the process exits
// or startTimeout passes.
func (p *process) waitUntil(ready func() error) error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("faulttest: %s exited: %v\n%s", p.name, err, p.output())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("faulttest: %s not ready within %s: %v\n%s", p.name, startTimeout, err, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// refused reports whether addr refuses TCP connections.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// missing skips t because a binary is missing, or fails it when CI=true.
func missing(t testing.TB, what string, err error) {
	t.Helper()
	testenv.Missing(t, "faulttest: "+what, err, "install Debian's postgresql and redis-server packages")
}

func addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
