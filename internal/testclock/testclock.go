// Package testclock holds the clocks a test hands to the code it runs in
// place of time.Now, so that the test moves time instead of waiting for it.
// Both are safe for concurrent use: the code under test reads them from its
// own goroutines while the test moves them.
package testclock

import (
	"sync"
	"time"
)

// Clock stands still until the test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// At returns a Clock that reads t.
func At(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Offset is the real time, moved forward by the test: for code that also
// runs in real time (a browser, a worker), where one step forward ages a
// session or a token without a wait. Its zero value reads the real time.
type Offset struct {
	mu sync.Mutex
	d  time.Duration
}

// Now returns the real time plus the offset, in UTC and truncated to
// microseconds (what PostgreSQL stores), so that a time read back from the
// database compares equal to the one written.
func (c *Offset) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.d).UTC().Truncate(time.Microsecond)
}

// Advance moves the clock forward by d.
func (c *Offset) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.d += d
}
