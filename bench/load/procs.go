package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// child is a process the bench started: the server or the baseline.
type child struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // set before exited is closed
}

// startChild runs path with args and exactly env, writing what it prints to
// logPath and passing every standard-output line to onLine (which may be
// nil).
func startChild(name, path string, args, env []string, logPath string, onLine func(string)) (*child, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	c := &child{name: name, cmd: exec.Command(path, args...), exited: make(chan struct{})}
	c.cmd.Env = env
	c.cmd.Stderr = logf
	stdout, err := c.cmd.StdoutPipe()
	if err == nil {
		err = c.cmd.Start()
	}
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			_, _ = logf.Write(append(sc.Bytes(), '\n'))
			if onLine != nil {
				onLine(sc.Text())
			}
		}
		_, _ = io.Copy(logf, stdout)
		c.err = c.cmd.Wait()
		logf.Close()
		close(c.exited)
	}()
	return c, nil
}

// pid returns the process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// stop sends SIGTERM and waits up to wait, then kills the process.
func (c *child) stop(wait time.Duration) error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
		return c.err
	case <-time.After(wait):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("%s did not stop within %v; killed", c.name, wait)
	}
}

// freePort returns a loopback port that was free a moment ago. The server
// announces its address only at log level info, and the bench runs it at
// warn, so the port is chosen here.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs the server binary with env on a free port and waits
// until /ready answers 200.
func startServer(ctx context.Context, path string, env []string, logPath string) (*child, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	return startServerPort(ctx, path, env, port, logPath)
}

// startServerPort is startServer on port, for a server that must know its
// address before it starts (its PUBLIC_URL).
func startServerPort(ctx context.Context, path string, env []string, port int, logPath string) (*child, string, error) {
	env = append(env, "PORT="+strconv.Itoa(port))
	c, err := startChild("server", path, []string{"all"}, env, logPath, nil)
	if err != nil {
		return nil, "", err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitReady(ctx, c, base+"/ready", 60*time.Second); err != nil {
		_ = c.stop(10 * time.Second)
		return nil, "", fmt.Errorf("server (log: %s): %w", logPath, err)
	}
	return c, base, nil
}

// waitReady polls url until it answers 200, the process exits or timeout
// passes.
func waitReady(ctx context.Context, c *child, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if res, err := client.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.exited:
			return fmt.Errorf("exited before it was ready: %v", c.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready within %v", timeout)
}

// startBaseline runs "load baseline" (this executable) with env and returns
// its base URL once it listens.
func startBaseline(ctx context.Context, env, args []string, logPath string) (*child, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	addr := make(chan string, 1)
	c, err := startChild("baseline", self, append([]string{"baseline", "-listen", "127.0.0.1:0"}, args...), env, logPath, func(line string) {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "baseline listening" {
			select {
			case addr <- rec.Addr:
			default:
			}
		}
	})
	if err != nil {
		return nil, "", err
	}
	select {
	case a := <-addr:
		return c, "http://" + a, nil
	case <-c.exited:
		return nil, "", fmt.Errorf("baseline exited (log: %s): %v", logPath, c.err)
	case <-time.After(30 * time.Second):
		_ = c.stop(5 * time.Second)
		return nil, "", fmt.Errorf("baseline did not listen within 30s (log: %s)", logPath)
	case <-ctx.Done():
		_ = c.stop(5 * time.Second)
		return nil, "", ctx.Err()
	}
}
