// Package npmpkg installs the node_modules of an npm package kept in the
// repository (a package.json and its committed package-lock.json), for the
// tests and tools that run node: npm ci, once per lock-file change per
// machine, under a file lock so that parallel processes do not install at
// once.
package npmpkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoNode reports that node or npm is not installed.
var ErrNoNode = errors.New("npmpkg: node or npm is not installed")

// marker, inside node_modules, holds the SHA-256 of the package-lock.json
// node_modules was installed from. npm ci removes node_modules first, so a
// marker never outlives its installation.
const marker = "node_modules/.actionkit-installed"

// Install makes sure dir's node_modules match its package-lock.json,
// running npm ci when they do not. It returns an error wrapping ErrNoNode
// when node or npm is missing.
func Install(dir string) error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNoNode, tool, err)
		}
	}
	lock := filepath.Join(os.TempDir(), "actionkit-npm-"+digest([]byte(dir))[:16]+".lock")
	return withFileLock(lock, func() error { return npmCI(dir) })
}

func npmCI(dir string) error {
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	want := digest(lock)
	path := filepath.Join(dir, marker)
	if got, err := os.ReadFile(path); err == nil && string(got) == want {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out.Bytes())
	}
	return os.WriteFile(path, []byte(want), 0o644)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
