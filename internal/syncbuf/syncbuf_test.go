package syncbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: writes from many goroutines, read meanwhile, all
// end up whole in the buffer.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			fmt.Fprintf(&b, "line %02d\n", i)
			_ = b.String()
		})
	}
	wg.Wait()
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(got) != 20 {
		t.Fatalf("got %d lines, want 20: %q", len(got), b.String())
	}
	for _, l := range got {
		if len(l) != len("line 00") || !strings.HasPrefix(l, "line ") {
			t.Errorf("torn line %q", l)
		}
	}
}
