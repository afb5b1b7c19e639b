package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// DefaultSyncInterval is how often a Shared limiter reconciles with Redis
// when SharedConfig.SyncInterval is zero.
const DefaultSyncInterval = time.Second

// syncBatch is the most keys sent in one pipelined round trip.
const syncBatch = 512

// SharedConfig configures a Shared limiter.
type SharedConfig struct {
	// Pool is the Redis connection pool; nil means in-process counting
	// only. The limiter does not close it.
	Pool *redis.Pool
	// Prefix starts every Redis key, e.g. "actionkit:ratelimit:".
	Prefix string
	// Logger receives the degraded/recovered lines; nil discards them.
	Logger *slog.Logger
	// Now is the clock windows are aligned to; nil means time.Now.
	Now func() time.Time
	// SyncInterval is the period of the background reconciliation; zero
	// means DefaultSyncInterval. A negative value starts no background
	// loop (tests call Sync themselves).
	SyncInterval time.Duration
	// Timeout bounds one reconciliation round trip; zero means one second.
	Timeout time.Duration
}

// Shared is a fixed-window limiter that decides in process and shares its
// counts through Redis in the background. A hit is admitted while the
// instance's estimate (the last total read from Redis plus its own hits
// since) is below the limit, so a decision costs no network call.
//
// Every SyncInterval each instance adds the hits it admitted since the
// last sync to the shared counter (INCRBY) and reads back the total of
// every key it holds for the current window, including keys with no new
// hit (GET), in one pipelined round trip per 512 keys. Windows are aligned
// to the clock (window k of length w covers [k·w, (k+1)·w)), so instances
// with synchronised clocks count the same window.
//
// Instances learn of each other's hits late, so together they may admit
// more than the limit: the package documentation gives the bound. When
// Redis fails, each instance counts alone, logs once, and adds its hits to
// Redis when it answers again.
type Shared struct {
	pool     *redis.Pool
	prefix   string
	log      *slog.Logger
	now      func() time.Time
	timeout  time.Duration
	interval time.Duration
	seed     maphash.Seed
	shards   [shardCount]sharedShard

	syncMu   sync.Mutex   // one reconciliation at a time
	degraded bool         // guarded by syncMu
	syncs    atomic.Int64 // reconciliations completed without error

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// sharedShard is one lock and the keys it guards.
type sharedShard struct {
	mu sync.Mutex
	m  map[localKey]*sharedEntry
}

// sharedEntry is one key's state in its current window.
type sharedEntry struct {
	index    int64 // the window's number: start / window length
	known    int64 // the shared total last read from Redis
	pending  int64 // hits admitted here and not yet sent
	inflight int64 // hits being sent by the running sync
}

// NewShared returns a Shared limiter for cfg and starts its reconciliation loop.
func NewShared(cfg SharedConfig) *Shared {
	s := &Shared{
		pool:     cfg.Pool,
		prefix:   cfg.Prefix,
		log:      cfg.Logger,
		now:      cfg.Now,
		timeout:  orDefault(cfg.Timeout, time.Second),
		interval: cfg.SyncInterval,
		seed:     maphash.MakeSeed(),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.interval == 0 {
		s.interval = DefaultSyncInterval
	}
	for i := range s.shards {
		s.shards[i].m = make(map[localKey]*sharedEntry)
	}
	if s.interval < 0 {
		close(s.done)
		return s
	}
	go s.loop()
	return s
}

// Close stops the reconciliation loop after a last sync, so the hits of a
// stopping instance still count. It does not close Config.Pool. Allow keeps
// working after Close, in process only. Close is idempotent.
func (s *Shared) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

// loop syncs every SyncInterval until Close.
func (s *Shared) loop() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			_ = s.Sync(context.Background())
			return
		case <-t.C:
			_ = s.Sync(context.Background())
		}
	}
}

// Allow counts one hit on key in the current window of the given length
// and reports whether it is within limit. Refused hits are not counted. It
// never blocks on the network, never fails and never panics; a limit of
// zero or less refuses every hit.
func (s *Shared) Allow(key string, limit int, window time.Duration) Decision {
	key = capKey(key)
	window = max(window, time.Millisecond).Round(time.Millisecond)
	now := s.now().UnixNano()
	index := now / int64(window)
	reset := (index + 1) * int64(window)
	k := localKey{key: key, window: window}
	sh := &s.shards[maphash.String(s.seed, key)&(shardCount-1)]
	sh.mu.Lock()
	e := sh.m[k]
	if e == nil || e.index < index {
		e = &sharedEntry{index: index}
		sh.m[k] = e
	}
	count := e.known + e.inflight + e.pending
	allowed := count < int64(limit)
	if allowed {
		e.pending++
		count++
	}
	sh.mu.Unlock()
	d := decide(count, limit, time.Duration(reset-now), false)
	d.Allowed = allowed
	if !allowed {
		d.Remaining = 0
	}
	return d
}

// syncItem is one key sent by a sync.
type syncItem struct {
	k     localKey
	e     *sharedEntry
	rkey  string
	delta int64 // hits to add; zero: the total is only read
	ttl   int64 // milliseconds
	total int64
	sent  bool
}

// Sync reconciles every key held for its current window with Redis. It
// adds the hits admitted here since the last sync and reads back the
// shared totals, also of keys with no new hit here, so that an instance
// learns of the others' hits whether or not it sees the client again.
// Windows that have ended are forgotten. On a Redis error it puts the
// unsent hits back, for a later sync to send, and returns the error.
func (s *Shared) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	items := s.collect(s.now().UnixNano())
	var err error
	for start := 0; start < len(items) && err == nil; start += syncBatch {
		err = s.send(ctx, items[start:min(start+syncBatch, len(items))])
	}
	if len(items) > 0 {
		s.settle(items, err)
	}
	if err == nil {
		s.syncs.Add(1)
	}
	return err
}

// collect forgets the windows that ended before now and returns an item for
// every other key, moving its pending hits in flight. Without Redis it only
// forgets.
func (s *Shared) collect(now int64) []syncItem {
	var items []syncItem
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, e := range sh.m {
			if e.index < now/int64(k.window) {
				delete(sh.m, k)
				continue
			}
			if s.pool == nil {
				continue
			}
			end := (e.index + 1) * int64(k.window)
			items = append(items, syncItem{
				k: k, e: e, delta: e.pending,
				rkey: s.prefix + k.key + ":" + strconv.FormatInt(k.window.Milliseconds(), 10) + ":" + strconv.FormatInt(e.index, 10),
				// The key outlives its window by a minute, so instances
				// whose clocks differ a little still meet in it.
				ttl: (end-now)/int64(time.Millisecond) + 60_000,
			})
			e.inflight, e.pending = e.pending, 0
		}
		sh.mu.Unlock()
	}
	return items
}

// send runs, in one pipelined round trip, INCRBY and PEXPIRE for each item
// with new hits and GET for each item without.
func (s *Shared) send(ctx context.Context, items []syncItem) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, it := range items {
		if err := sendItem(conn, it); err != nil {
			return err
		}
	}
	if err := conn.Flush(); err != nil {
		return err
	}
	for i := range items {
		// GET of a key no instance has written yet is nil: a total of 0.
		total, err := redis.Int64(redis.ReceiveWithTimeout(conn, s.timeout))
		if err != nil && !errors.Is(err, redis.ErrNil) {
			return err
		}
		if items[i].delta > 0 {
			if _, err := redis.ReceiveWithTimeout(conn, s.timeout); err != nil {
				return err
			}
		}
		items[i].total, items[i].sent = total, true
	}
	return nil
}

// sendItem buffers the commands of one item.
func sendItem(conn redis.Conn, it syncItem) error {
	if it.delta == 0 {
		return conn.Send("GET", it.rkey)
	}
	if err := conn.Send("INCRBY", it.rkey, it.delta); err != nil {
		return err
	}
	return conn.Send("PEXPIRE", it.rkey, it.ttl)
}

// settle records the totals read, or on failure puts the hits back.
func (s *Shared) settle(items []syncItem, err error) {
	for _, it := range items {
		sh := &s.shards[maphash.String(s.seed, it.k.key)&(shardCount-1)]
		sh.mu.Lock()
		if it.sent {
			// The total includes this instance's hits in flight. It only
			// grows within a window, unless Redis lost the key.
			it.e.known = max(it.e.known, it.total)
		} else {
			it.e.pending += it.delta
		}
		it.e.inflight = 0
		sh.mu.Unlock()
	}
	switch {
	case err != nil && !s.degraded:
		s.degraded = true
		s.log.Warn("ratelimit: redis unavailable, each instance counts alone", "err", err)
	case err == nil && s.degraded:
		s.degraded = false
		s.log.Info("ratelimit: redis available again, counts shared")
	}
}
