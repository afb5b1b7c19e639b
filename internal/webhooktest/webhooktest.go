// Package webhooktest runs a webhook receiver written with npm
// standardwebhooks (receiver/receiver.js), so that tests prove deliveries
// verify with a library other than the service's own code.
package webhooktest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// Line is one line the receiver printed: a verified delivery (ID, Type,
// OwnerID, Duplicate) or one that did not verify (Error, ID).
type Line struct {
	Port      int    `json:"port"`
	Ready     bool   `json:"ready"`
	ID        string `json:"id"`
	Type      string `json:"type"`
	OwnerID   string `json:"ownerId"`
	Duplicate bool   `json:"duplicate"`
	Error     string `json:"error"`
}

// Receiver is the node receiver, running until the test ends.
type Receiver struct {
	// URL is where it listens, http://127.0.0.1:<port>.
	URL   string
	lines chan Line
	stdin io.WriteCloser
}

// Start runs the receiver; without node or npm the test is skipped (or
// fails with CI=true).
func Start(t testing.TB) *Receiver {
	t.Helper()
	dir := sockettest.NodePackage(t, "receiver")
	cmd := exec.Command("node", filepath.Join(dir, "receiver.js"))
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := &Receiver{lines: make(chan Line, 1000), stdin: stdin}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var l Line
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				r.lines <- l
			}
		}
		close(r.lines)
	}()
	r.URL = fmt.Sprintf("http://127.0.0.1:%d", r.Next(t).Port)
	return r
}

// SetSecret gives the receiver the webhook's secret.
func (r *Receiver) SetSecret(t testing.TB, secret string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, secret+"\n"); err != nil {
		t.Fatal(err)
	}
	if !r.Next(t).Ready {
		t.Fatal("webhooktest: the receiver did not take the secret")
	}
}

// Next returns the receiver's next line, failing the test after 20 s.
func (r *Receiver) Next(t testing.TB) Line {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatal("webhooktest: the receiver exited")
		}
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("webhooktest: no line from the receiver within 20s")
	}
	return Line{}
}
