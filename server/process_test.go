package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/syncbuf"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// serverBinary builds the server once per test run, as operators do (with
// the race detector when the tests run with it).
func serverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "actionkit-bin-")
		if buildErr != nil {
			return
		}
		args := []string{"build", "-o", filepath.Join(buildDir, "server")}
		if raceBuild {
			// The test binary's dependencies are already compiled with
			// -race: the server then costs a link, not a second build of
			// every dependency, and its processes report data races too.
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = err
			buildDir = buildDir + " (build failed: " + string(out) + ")"
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v %s", buildErr, buildDir)
	}
	return filepath.Join(buildDir, "server")
}

// process is the server binary running as its own OS process.
type process struct {
	cmd  *exec.Cmd
	logs *syncbuf.Buffer
	addr chan string
	done chan error
	URL  string
	// killed is set by kill: the process is gone and its exit status read.
	killed bool
}

// startProcess runs the server binary with args and env; for the api role
// it waits until the process reports its address. The process is stopped
// with SIGTERM when the test ends and must exit 0.
func startProcess(t testing.TB, env map[string]string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(serverBinary(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, logs: &syncbuf.Buffer{}, addr: make(chan string, 1), done: make(chan error, 1)}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.scan(stdout)
	t.Cleanup(func() {
		if p.killed {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-p.done:
			if err != nil {
				t.Errorf("%v exited with %v:\n%s", args, err, p.logs.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%v did not stop within 30s", args)
		}
	})
	if len(args) > 0 && (args[0] == roleAPI || args[0] == "all") {
		select {
		case a := <-p.addr:
			p.URL = "http://" + a
		case err := <-p.done:
			t.Fatalf("%v exited before listening: %v\n%s", args, err, p.logs.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("%v did not listen within 60s:\n%s", args, p.logs.String())
		}
	}
	return p
}

// kill ends the process with SIGKILL, as a crash or the OOM killer would,
// and waits until it is gone.
func (p *process) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	select {
	case <-p.done:
		p.killed = true
	case <-time.After(10 * time.Second):
		t.Fatal("the killed process did not exit within 10s")
	}
}

// scan copies the process's JSON log lines and picks the API address.
func (p *process) scan(stdout interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		_, _ = p.logs.Write(append(append([]byte(nil), line...), '\n'))
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "api listening" {
			_, port, _ := splitHostPort(rec.Addr)
			p.addr <- "127.0.0.1:" + port
		}
	}
	p.done <- p.cmd.Wait()
}

// asClient lets the HTTP helpers talk to a process.
func (p *process) asServer(t testing.TB) *testServer {
	return &testServer{t: t, URL: p.URL, logs: p.logs}
}
