package sockettest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// installMarker, inside node_modules, holds the SHA-256 of the
// package-lock.json that node_modules was installed from. npm ci deletes
// node_modules first, so a marker never outlives its installation.
const installMarker = "node_modules/.sockettest-installed"

var (
	installOnce sync.Once
	installErr  error  // why the client cannot run, if it cannot
	installSkip bool   // installErr means "node or npm is absent"
	clientDir   string // the directory of client.mjs
)

// ensureClient makes sure node can run the client, installing its
// node_modules with npm ci once per process (and once per lock-file change
// per machine). Without node or npm the test is skipped, or fails if
// CI=true; a failing npm ci fails the test.
func ensureClient(t testing.TB) string {
	t.Helper()
	installOnce.Do(install)
	if installErr == nil {
		return clientDir
	}
	if installSkip && os.Getenv("CI") != "true" {
		t.Skipf("sockettest: %v", installErr)
	}
	t.Fatalf("sockettest: %v", installErr)
	return ""
}

func install() {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		installErr = fmt.Errorf("cannot locate the client sources")
		return
	}
	clientDir = filepath.Join(filepath.Dir(file), "client")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			installErr, installSkip = fmt.Errorf("%s is not installed: %w", tool, err), true
			return
		}
	}
	installErr = withFileLock(filepath.Join(os.TempDir(), "sockettest-"+digest([]byte(clientDir))[:16]+".lock"), npmCI)
}

// npmCI runs npm ci unless the marker shows node_modules matches the lock
// file. It runs under a file lock: packages are tested in parallel processes.
func npmCI() error {
	lock, err := os.ReadFile(filepath.Join(clientDir, "package-lock.json"))
	if err != nil {
		return err
	}
	want := digest(lock)
	marker := filepath.Join(clientDir, installMarker)
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = clientDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %w\n%s", clientDir, err, out.Bytes())
	}
	return os.WriteFile(marker, []byte(want), 0o644)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
