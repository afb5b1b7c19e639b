package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/actionkit/actionkit/internal/npmpkg"
)

// ensureNodeModules installs the node_modules of the npm package in dir
// with npm ci from its committed package-lock.json, unless they match it
// already.
func ensureNodeModules(dir string) error {
	if err := npmpkg.Install(dir); err != nil {
		return fmt.Errorf("the sockets scenario: %w", err)
	}
	return nil
}

// nodeMsg is one line printed by bench/sockets/feed-load.mjs, or "exit"
// when the process ended.
type nodeMsg struct {
	Proc           int            `json:"-"`
	Type           string         `json:"type"`
	Clients        int            `json:"clients"`
	Connected      int            `json:"connected"`
	Joined         int            `json:"joined"`
	Failed         int            `json:"failed"`
	Errors         map[string]int `json:"errors"`
	Ms             int64          `json:"ms"`
	PostID         string         `json:"postId"`
	At             []float64      `json:"at"`
	ClientsWithAll int            `json:"clientsWithAll"`
	Duplicates     int            `json:"duplicates"`
	Disconnects    int            `json:"disconnects"`
	Unexpected     int            `json:"unexpected"`
	Missing        []any          `json:"missing"`
	Message        string         `json:"message"`
}

// nodeProc is one node process holding many socket.io clients.
type nodeProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	quit   chan struct{} // closed by close: later lines are dropped

	mu     sync.Mutex
	stderr bytes.Buffer
}

// Write keeps the first 4 KiB of what node prints on standard error.
func (p *nodeProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if room := 4096 - p.stderr.Len(); room > 0 {
		p.stderr.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// stderrText returns what Write kept.
func (p *nodeProc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startNode runs script in dir with cfg as its first input line, and
// sends every line it prints, tagged with index, to out.
func startNode(dir, script string, index int, cfg any, out chan<- nodeMsg) (*nodeProc, error) {
	p := &nodeProc{cmd: exec.Command("node", script), exited: make(chan struct{}), quit: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stderr = p
	stdout, err := p.cmd.StdoutPipe()
	if err == nil {
		p.stdin, err = p.cmd.StdinPipe()
	}
	if err == nil {
		err = p.cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("start node: %w", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			m := nodeMsg{Type: "invalid", Message: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = nodeMsg{Type: "invalid", Message: sc.Text()}
			}
			m.Proc = index
			p.deliver(out, m)
		}
		err := p.cmd.Wait()
		close(p.exited)
		p.deliver(out, nodeMsg{Proc: index, Type: "exit", Message: fmt.Sprintf("%v: %s", err, p.stderrText())})
	}()
	return p, p.send(cfg)
}

// deliver passes m on, unless the process is being closed.
func (p *nodeProc) deliver(out chan<- nodeMsg, m nodeMsg) {
	select {
	case out <- m:
	case <-p.quit:
	}
}

// send writes v as one input line.
func (p *nodeProc) send(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = p.stdin.Write(append(line, '\n'))
	return err
}

// close asks the process to close its clients and exit, killing it after
// wait.
func (p *nodeProc) close(wait time.Duration) {
	close(p.quit)
	_ = p.send(map[string]string{"cmd": "close"})
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(wait):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
