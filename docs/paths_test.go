package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// linkTarget matches the target of a Markdown link or image.
	linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan matches an inline code span.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// repoPath matches a relative path of two or more segments.
	repoPath = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+/?$`)
	// goName matches a qualified Go name such as actions/v2.Login.
	goName = regexp.MustCompile(`\.[A-Z][A-Za-z0-9_]*$`)
)

// generated are the directories whose files the tools write (ignored by
// git): a document may name such a file before it exists.
var generated = []string{"bench/out/", "bin/"}

// TestNamedPathsExist fails for every repository path that README.md or a
// file of docs/ names but that does not exist: a link to a relative file,
// or a code span such as `server/drain.go` whose first segment is a
// directory at the repository's root.
func TestNamedPathsExist(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../README.md", "../BENCHMARKS.md")
	checked := 0
	for _, name := range files {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range namedPaths(filepath.Dir(name), string(text)) {
			checked++
			if _, err := os.Stat(p.resolved); err != nil {
				t.Errorf("%s names %q, which does not exist", name, p.named)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d paths; the patterns no longer find the documentation's paths", checked)
	}
}

// namedPath is a path as a document names it and as it resolves from this
// directory.
type namedPath struct{ named, resolved string }

// namedPaths returns the repository paths text names: relative link targets
// (resolved against dir, the document's directory) and code spans that
// start with a directory at the repository's root (resolved against it).
func namedPaths(dir, text string) []namedPath {
	var out []namedPath
	for _, m := range linkTarget.FindAllStringSubmatch(text, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" || strings.Contains(target, ":") {
			continue
		}
		out = append(out, namedPath{m[1], filepath.Join(dir, target)})
	}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		if !repoPath.MatchString(span) || goName.MatchString(span) || isGenerated(span) {
			continue
		}
		first, _, _ := strings.Cut(span, "/")
		if st, err := os.Stat(filepath.Join("..", first)); err != nil || !st.IsDir() {
			continue
		}
		out = append(out, namedPath{span, filepath.Join("..", span)})
	}
	return out
}

// isGenerated reports whether p lies in a directory the tools write.
func isGenerated(p string) bool {
	for _, dir := range generated {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// TestREADMETablesAreShort keeps the README a front door: no table of more
// than 15 rows (the long ones live in docs/configuration.md and docs/api.md).
func TestREADMETablesAreShort(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, tables := 0, 0
	for _, line := range append(strings.Split(string(text), "\n"), "") {
		if strings.HasPrefix(line, "|") {
			rows++
			continue
		}
		if rows > 0 {
			tables++
			if body := rows - 2; body > 15 { // less the header and its rule
				t.Errorf("a README table has %d rows; move it to docs/ and keep at most 15", body)
			}
		}
		rows = 0
	}
	if tables == 0 {
		t.Fatal("found no table in README.md")
	}
}
