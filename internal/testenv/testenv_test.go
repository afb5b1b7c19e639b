package testenv

import (
	"errors"
	"strings"
	"testing"
)

func TestMissing(t *testing.T) {
	down := errors.New("connection refused")
	for _, ci := range []string{"", "false", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			skipped, fatal := Record(t, func(tb testing.TB) {
				Missing(tb, "Redis at redis://127.0.0.1:1/0", down, "set REDIS_URL")
			})
			if ci == "true" {
				if fatal == "" || skipped != "" || !strings.Contains(fatal, "connection refused") {
					t.Errorf("CI=true: fatal %q, skipped %q; want a failure naming the cause", fatal, skipped)
				}
				return
			}
			if skipped == "" || fatal != "" || !strings.Contains(skipped, "set REDIS_URL") {
				t.Errorf("CI=%q: skipped %q, fatal %q; want a skip with the hint", ci, skipped, fatal)
			}
		})
	}
}
