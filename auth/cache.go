package auth

import (
	"sync"
	"time"
)

// verifiedCacheSize bounds the cache of verified tokens: about 3 MB.
const verifiedCacheSize = 8192

// verifiedCache remembers the claims of tokens whose signature and claims
// were verified, keyed by the whole token, so that a client presenting the
// same token again costs a map look-up instead of an HMAC and two JSON
// decodings. Only the time-dependent checks are repeated on a hit. The
// owner's token version is not cached: the authenticator still loads it
// on every request, so revocation stays immediate.
type verifiedCache struct {
	shards [16]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string]Claims
}

func (c *verifiedCache) shard(token string) *cacheShard {
	// The last characters are the signature: uniformly random.
	return &c.shards[token[len(token)-1]&15]
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
