package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestCodesGolden pins every code the server answers: its ID, status and
// message key. Codes are append-only: a released line that changes or goes
// fails here; a new code is appended to testdata/codes.golden too.
func TestCodesGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/codes.golden")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var got []string
	for _, c := range errorCodes() {
		got = append(got, fmt.Sprintf("%s %d %s", c.ID(), c.Status(), c.Key()))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("codes:\n%s\nwant (testdata/codes.golden):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := newCatalog([]string{"en", "es", "zh-TW"}); err != nil {
		t.Error(err)
	}
}
