package browsertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"

	"github.com/actionkit/actionkit/internal/testenv"
)

// DefaultTimeout bounds a scenario run when Options.Timeout is zero.
const DefaultTimeout = 90 * time.Second

// Options configure a scenario run.
type Options struct {
	// Artifacts is the directory screenshots are written to; empty means a
	// new temporary directory.
	Artifacts string
	// Env are extra NAME=value variables for the scenario.
	Env []string
	// Timeout bounds the whole run; zero means DefaultTimeout.
	Timeout time.Duration
	// Checkpoint answers a checkpoint: its return value, encoded as JSON, is
	// the reply the scenario waits for. Nil answers every checkpoint with
	// {}. It runs on the test's goroutine, so it may call t.Fatal.
	Checkpoint func(Message) any
}

// Message is one line a scenario printed.
type Message struct {
	// Type is result, checkpoint, log, done or fail.
	Type string `json:"type"`
	// Name names a result or a checkpoint.
	Name string `json:"name,omitempty"`
	// Data is a result's or checkpoint's content.
	Data map[string]any `json:"data,omitempty"`
	// Msg is a log line, Error a failure, Ms the duration of a done run.
	Msg   string  `json:"msg,omitempty"`
	Error string  `json:"error,omitempty"`
	Ms    float64 `json:"ms,omitempty"`
	// Pages describes every open tab when a run fails: its URL, state,
	// feed status and last console lines.
	Pages []map[string]any `json:"pages,omitempty"`
}

// Results are the result messages of a run, by name.
type Results map[string]Message

// Chromium returns the Chromium binary to use: $CHROMIUM, else
// /usr/bin/chromium. Without it the test is skipped, or fails when CI=true.
func Chromium(t testing.TB) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(t, "browsertest: Chromium at "+path, err, "install Debian's chromium package, or set CHROMIUM")
	}
	return path
}

// Run runs scenario against baseURL in a fresh browser profile, answering
// its checkpoints, and returns its results. The test fails if the scenario
// fails or does not finish within the timeout.
func Run(t testing.TB, baseURL, scenario string, opts Options) Results {
	t.Helper()
	chromium := Chromium(t)
	dir := sockettest.NodePackage(t, ".") // run.mjs and its package.json
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	cmd := exec.Command("node", "run.mjs", scenario)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTIONKIT_URL="+baseURL, "CHROMIUM="+chromium)
	if opts.Artifacts != "" {
		cmd.Env = append(cmd.Env, "ACTIONKIT_ARTIFACTS="+opts.Artifacts)
	}
	cmd.Env = append(cmd.Env, opts.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second // a browser left holding stderr cannot hold Wait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("browsertest: start node: %v", err)
	}
	lines := make(chan string, 64)
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_ = cmd.Wait() // after the last read, as exec requires
		close(exited)
	}()
	t.Cleanup(func() { stop(cmd, lines, exited, 0) })
	r := &runner{t: t, scenario: scenario, stdin: stdin, opts: opts, results: Results{}}
	r.read(lines, time.After(timeout), &stderr)
	stop(cmd, lines, exited, 10*time.Second)
	return r.results
}

// stop lets node exit by itself within grace, then asks it to (SIGTERM:
// playwright then closes the browser it started), then kills it. It is
// safe to call twice.
func stop(cmd *exec.Cmd, lines <-chan string, exited <-chan struct{}, grace time.Duration) {
	go func() {
		for range lines { // unblock the reader
		}
	}()
	select {
	case <-exited:
		return
	case <-time.After(grace):
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// runner follows one run's output.
type runner struct {
	t        testing.TB
	scenario string
	stdin    io.Writer
	opts     Options
	results  Results
}

func (r *runner) read(lines <-chan string, timeout <-chan time.Time, stderr *bytes.Buffer) {
	t := r.t
	t.Helper()
	var log []string
	for {
		select {
		case <-timeout:
			t.Fatalf("browsertest: %s did not finish in time; it printed:\n%s", r.scenario, strings.Join(log, "\n"))
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("browsertest: %s ended without a result line; it printed:\n%s\nstderr: %s", r.scenario, strings.Join(log, "\n"), stderr)
			}
			log = append(log, line)
			var m Message
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				continue // not ours (a library's output)
			}
			if r.handle(m) {
				return
			}
		}
	}
}

// handle acts on one message and reports whether the run is over.
func (r *runner) handle(m Message) bool {
	t := r.t
	t.Helper()
	switch m.Type {
	case "result":
		r.results[m.Name] = m
	case "log":
		t.Logf("browser: %s", m.Msg)
	case "checkpoint":
		var reply any = map[string]any{}
		if r.opts.Checkpoint != nil {
			reply = r.opts.Checkpoint(m)
		}
		raw, err := json.Marshal(reply)
		if err != nil {
			t.Fatalf("browsertest: checkpoint %s: %v", m.Name, err)
		}
		if _, err := fmt.Fprintf(r.stdin, "%s\n", raw); err != nil {
			t.Fatalf("browsertest: answer checkpoint %s: %v", m.Name, err)
		}
	case "fail":
		pages, _ := json.MarshalIndent(m.Pages, "", "  ")
		t.Fatalf("browsertest: %s failed: %s\nopen tabs: %s", r.scenario, m.Error, pages)
	case "done":
		t.Logf("browsertest: %s took %.1fs in the browser", r.scenario, m.Ms/1000)
		return true
	}
	return false
}

// Int returns the number under key in the message's data.
func (m Message) Int(key string) int {
	f, _ := m.Data[key].(float64)
	return int(f)
}

// Str returns the string under key in the message's data.
func (m Message) Str(key string) string {
	s, _ := m.Data[key].(string)
	return s
}
