package accesstoken

import (
	"hash/maphash"
	"sync"
	"time"
)

// cacheSize bounds the cache of verified tokens.
const cacheSize = 8192

// verifiedCache remembers tokens whose signature and claims were verified,
// keyed by the whole token, so that an agent presenting the same token on
// every call costs a map look-up instead of a signature check. A hit
// repeats what may have changed: the time checks, the resource asked for,
// and that the key is still published. Whether the session is live is
// never cached (the framework asks OAuthSessions on every request).
type verifiedCache struct {
	seed   maphash.Seed
	once   sync.Once
	shards [16]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string]*Token
}

// shard picks a token's shard from a seeded hash of the whole token.
func (c *verifiedCache) shard(token string) *cacheShard {
	c.once.Do(func() { c.seed = maphash.MakeSeed() })
	return &c.shards[maphash.String(c.seed, token)%uint64(len(c.shards))]
}

// get returns a verified token still valid at now, with leeway.
func (c *verifiedCache) get(token string, now time.Time, leeway time.Duration) (*Token, bool) {
	s := c.shard(token)
	s.mu.RLock()
	t, ok := s.m[token]
	s.mu.RUnlock()
	if !ok || !now.Before(t.ExpiresAt.Add(leeway)) || t.IssuedAt.After(now.Add(leeway)) {
		return nil, false
	}
	return t, true
}

// put remembers a verified token, evicting an arbitrary entry of its shard
// when the shard is full.
func (c *verifiedCache) put(token string, t *Token) {
	s := c.shard(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]*Token)
	}
	if len(s.m) >= cacheSize/len(c.shards) {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[token] = t
}
