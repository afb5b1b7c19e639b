package npmpkg

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestInstallSkipsWhenTheMarkerMatches: an installation whose marker holds
// the lock file's digest is left alone (no npm ci is run: the package here
// would not even install), and a stale marker is not trusted.
func TestInstallSkipsWhenTheMarkerMatches(t *testing.T) {
	dir := t.TempDir()
	lock := []byte(`{"name":"x","lockfileVersion":3,"requires":true,"packages":{}}`)
	if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte(digest(lock)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := npmCI(dir); err != nil {
		t.Errorf("a matching marker: got %v, want nil without running npm", err)
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := npmCI(dir); err == nil {
		t.Error("a stale marker was trusted: npm ci should have run (and failed without a package.json)")
	}
}

func TestInstallWithoutNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := Install(t.TempDir()); !errors.Is(err, ErrNoNode) {
		t.Errorf("got %v, want ErrNoNode", err)
	}
}
