package sockettest

import (
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/actionkit/actionkit/internal/npmpkg"

	"github.com/actionkit/actionkit/internal/testenv"
)

// installs remembers, per directory, the outcome of its installation in
// this process.
var installs sync.Map // directory -> *installation

type installation struct {
	once sync.Once
	err  error // why node cannot run code there, if it cannot
}

// ensureClient makes sure node can run the client, installing its
// node_modules with npm ci once per process (and once per lock-file change
// per machine). Without node or npm the test is skipped, or fails if
// CI=true; a failing npm ci fails the test.
func ensureClient(t testing.TB) string {
	t.Helper()
	return NodePackage(t, "client")
}

// NodePackage returns the directory name beside the source file of its
// caller, an npm package kept in the repository, with its node_modules
// installed by EnsureNodeModules. It lets a test helper find its own node
// scripts wherever the test runs from.
func NodePackage(t testing.TB, name string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(1)
	if !ok {
		t.Fatalf("sockettest: cannot locate the source of the npm package %s", name)
	}
	dir := filepath.Join(filepath.Dir(file), name)
	EnsureNodeModules(t, dir)
	return dir
}

// EnsureNodeModules installs the node_modules of the npm package in dir
// from its committed package-lock.json (see package npmpkg), once per
// process, so that a test can run node scripts there (the examples'
// recipes, for instance). Without node or npm the test is skipped, or
// fails if CI=true; a failing npm ci fails the test.
func EnsureNodeModules(t testing.TB, dir string) {
	t.Helper()
	v, _ := installs.LoadOrStore(dir, &installation{})
	in := v.(*installation)
	in.once.Do(func() { in.err = npmpkg.Install(dir) })
	if in.err == nil {
		return
	}
	if errors.Is(in.err, npmpkg.ErrNoNode) {
		testenv.Missing(t, "sockettest: node and npm", in.err, "install Node.js 20 and npm")
	}
	t.Fatalf("sockettest: %v", in.err)
}
