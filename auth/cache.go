package auth

import (
	"hash/maphash"
	"sync"
	"time"
)

// verifiedCacheSize bounds the cache of verified tokens: about 3 MB.
const verifiedCacheSize = 8192

// verifiedCache remembers the claims of tokens already verified, keyed by
// the whole token. A client presenting the same token again then costs a
// map look-up instead of an HMAC and two JSON decodings; only the checks
// that depend on the time are repeated. The owner's token version is not
// cached: the authenticator loads it on every request, so a revocation
// takes effect at once.
type verifiedCache struct {
	seed   maphash.Seed
	once   sync.Once
	shards [16]cacheShard
}

// cacheShard is one sixteenth of the cache, with its own lock.
type cacheShard struct {
	mu sync.RWMutex
	m  map[string]Claims
}

// shard picks the shard of token from a seeded hash of the whole token.
// The whole token spreads tokens over every shard (its last character
// holds only 4 bits of the signature), and the seed keeps a client from
// aiming many tokens at one shard.
func (c *verifiedCache) shard(token string) *cacheShard {
	c.once.Do(func() { c.seed = maphash.MakeSeed() })
	return &c.shards[maphash.String(c.seed, token)%uint64(len(c.shards))]
}

// get returns the claims of a verified token still valid at now.
func (c *verifiedCache) get(token string, now time.Time) (Claims, bool) {
	s := c.shard(token)
	s.mu.RLock()
	cl, ok := s.m[token]
	s.mu.RUnlock()
	if !ok || !now.Before(cl.ExpiresAt.Add(ClockSkew)) || cl.IssuedAt.After(now.Add(ClockSkew)) {
		return Claims{}, false
	}
	return cl, true
}

// put remembers a verified token, evicting an arbitrary entry of its shard
// when the shard is full.
func (c *verifiedCache) put(token string, cl Claims) {
	s := c.shard(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]Claims)
	}
	if len(s.m) >= verifiedCacheSize/len(c.shards) {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[token] = cl
}
