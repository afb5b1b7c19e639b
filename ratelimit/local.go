package ratelimit

import (
	"hash/maphash"
	"sync"
	"time"
)

const (
	// shardCount spreads in-process keys over independently locked maps so
	// concurrent requests rarely contend. A power of two.
	shardCount = 64
	// rebuildMin is the peak size below which a shard's map is never
	// reallocated: small maps are not worth copying.
	rebuildMin = 256
)

// localKey identifies an in-process window: the same key under two window
// lengths is two counters, as in Redis.
type localKey struct {
	key    string
	window time.Duration
}

// localEntry is the state of one in-process window.
type localEntry struct {
	count int64
	reset int64 // UnixNano at which the window closes
}

// localShard is one lock and the windows it guards.
type localShard struct {
	mu sync.Mutex
	m  map[localKey]localEntry
	// peak is the largest size m has had since it was allocated: Go maps
	// never release buckets, so this is what m really occupies.
	peak int
}

// localCounter is the in-process fixed-window counter used without Redis.
type localCounter struct {
	seed   maphash.Seed
	shards [shardCount]localShard
}

// newLocalCounter returns an empty counter.
func newLocalCounter() *localCounter {
	c := &localCounter{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = make(map[localKey]localEntry)
	}
	return c
}

// shard returns the shard of key.
func (c *localCounter) shard(key string) *localShard {
	return &c.shards[maphash.String(c.seed, key)&(shardCount-1)]
}

// hit counts one hit on (key, window) at now and returns the window's count
// and the UnixNano time at which it closes.
func (c *localCounter) hit(key string, window time.Duration, now int64) (int64, int64) {
	k := localKey{key: key, window: window}
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[k]
	if !ok || now >= e.reset {
		e = localEntry{reset: now + int64(window)}
	}
	e.count++
	s.m[k] = e
	s.mu.Unlock()
	return e.count, e.reset
}

// sweep forgets every window closed at now, and reallocates maps that have
// shrunk to a quarter of their peak so their memory is returned too.
func (c *localCounter) sweep(now int64) {
	for i := range c.shards {
		c.shards[i].sweep(now)
	}
}

// sweep is localCounter.sweep for one shard.
func (s *localShard) sweep(now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak = max(s.peak, len(s.m))
	for k, e := range s.m {
		if now >= e.reset {
			delete(s.m, k)
		}
	}
	if s.peak < rebuildMin || len(s.m) > s.peak/4 {
		return
	}
	m := make(map[localKey]localEntry, len(s.m))
	for k, e := range s.m {
		m[k] = e
	}
	s.m = m
	s.peak = len(m)
}

// sweepLoop sweeps the in-process counter every interval until Close.
func (l *Limiter) sweepLoop(interval time.Duration) {
	defer close(l.sweepDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.local.sweep(l.now().UnixNano())
		}
	}
}
