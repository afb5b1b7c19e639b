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

// installs remembers, per directory, the outcome of its installation in
// this process.
var installs sync.Map // directory -> *installation

type installation struct {
	once sync.Once
	err  error // why node cannot run code there, if it cannot
	skip bool  // err means "node or npm is absent"
}

// ensureClient makes sure node can run the client, installing its
// node_modules with npm ci once per process (and once per lock-file change
// per machine). Without node or npm the test is skipped, or fails if
// CI=true; a failing npm ci fails the test.
func ensureClient(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("sockettest: cannot locate the client sources")
	}
	dir := filepath.Join(filepath.Dir(file), "client")
	EnsureNodeModules(t, dir)
	return dir
}

// EnsureNodeModules installs the node_modules of the npm package in dir
// from its committed package-lock.json, once per process and once per
// lock-file change per machine, so that a test can run node scripts there
// (the examples' recipes, for instance). Without node or npm the test is
// skipped, or fails if CI=true; a failing npm ci fails the test.
func EnsureNodeModules(t testing.TB, dir string) {
	t.Helper()
	v, _ := installs.LoadOrStore(dir, &installation{})
	in := v.(*installation)
	in.once.Do(func() { in.skip, in.err = install(dir) })
	if in.err == nil {
		return
	}
	if in.skip && os.Getenv("CI") != "true" {
		t.Skipf("sockettest: %v", in.err)
	}
	t.Fatalf("sockettest: %v", in.err)
}

// install reports skip when node or npm is absent.
func install(dir string) (skip bool, err error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return true, fmt.Errorf("%s is not installed: %w", tool, err)
		}
	}
	lock := filepath.Join(os.TempDir(), "sockettest-"+digest([]byte(dir))[:16]+".lock")
	return false, withFileLock(lock, func() error { return npmCI(dir) })
}

// npmCI runs npm ci unless the marker shows node_modules matches the lock
// file. It runs under a file lock: packages are tested in parallel processes.
func npmCI(dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	want := digest(lock)
	marker := filepath.Join(dir, installMarker)
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out.Bytes())
	}
	return os.WriteFile(marker, []byte(want), 0o644)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
