package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestErrorsDocListsEveryCode: docs/errors.md has a row for every code the
// server answers, with its status, and no row for a code it does not, so
// the page cannot drift from testdata/codes.golden.
func TestErrorsDocListsEveryCode(t *testing.T) {
	golden, doc := readText(t, "testdata/codes.golden"), readText(t, "../docs/errors.md")
	rows := map[string]string{} // code -> status, from the tables
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| ([0-9]{3}) \\|").FindAllStringSubmatch(doc, -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/errors.md lists %s twice", m[1])
		}
		rows[m[1]] = m[2]
	}
	want := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(golden), "\n") {
		var id, key string
		var status int
		if _, err := fmt.Sscanf(line, "%s %d %s", &id, &status, &key); err != nil {
			t.Fatalf("codes.golden line %q: %v", line, err)
		}
		want[id] = true
		if got, ok := rows[id]; !ok {
			t.Errorf("docs/errors.md has no row for %s (%d)", id, status)
		} else if got != fmt.Sprint(status) {
			t.Errorf("docs/errors.md gives %s status %s, want %d", id, got, status)
		}
	}
	for id := range rows {
		if !want[id] {
			t.Errorf("docs/errors.md lists %s, which the server does not answer", id)
		}
	}
}

// readText returns the file's text, failing the test if it cannot be read.
func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
