package faulttest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Redis is a private Redis server.
type Redis struct {
	t    testing.TB
	dir  string
	port int
	bin  string
	proc *process
}

// NewRedis starts a private redis-server on a free port and stops it,
// removing its files, when t ends. It skips t when redis-server is
// missing, or fails it when CI=true.
func NewRedis(t testing.TB) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t, "redis-server", err)
	}
	r := &Redis{t: t, bin: bin}
	if r.dir, err = os.MkdirTemp("", "faulttest-redis-"); err != nil {
		t.Fatalf("faulttest: %v", err)
	}
	r.proc = &process{name: "redis-server", log: filepath.Join(r.dir, "server.log")}
	t.Cleanup(func() {
		if err := r.proc.stop(syscall.SIGKILL); err != nil {
			t.Error(err)
		}
		_ = os.RemoveAll(r.dir)
	})
	if r.port, err = freePort(); err != nil {
		t.Fatalf("faulttest: %v", err)
	}
	r.Start()
	return r
}

// Addr returns the server's host:port.
func (r *Redis) Addr() string { return addr(r.port) }

// URL returns the server's URL, database 0.
func (r *Redis) URL() string { return "redis://" + r.Addr() + "/0" }

// Start starts the server, or starts it again after Stop on the same port
// with the data saved at the stop, and returns once it answers PING.
func (r *Redis) Start() {
	r.t.Helper()
	err := r.proc.start(nil, syscall.SIGTERM, r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--save", "3600 1", "--appendonly", "no", "--daemonize", "no")
	if err == nil {
		err = r.proc.waitUntil(r.ping)
	}
	if err != nil {
		r.t.Fatal(err)
	}
}

// Stop shuts the server down the ordinary way (SIGTERM: the dataset is
// saved, clients are disconnected, new connections are refused) and
// returns once the process has exited.
func (r *Redis) Stop() {
	r.t.Helper()
	if err := r.proc.stop(syscall.SIGTERM); err != nil {
		r.t.Fatal(err)
	}
	if !refused(r.Addr()) {
		r.t.Fatalf("faulttest: redis-server stopped but %s still accepts connections", r.Addr())
	}
}

// ping sends PING and wants PONG (not -LOADING while the dump loads).
func (r *Redis) ping() error {
	c, err := net.DialTimeout("tcp", r.Addr(), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
