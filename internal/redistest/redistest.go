package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/testenv"
)

// DefaultURL is the server used when REDIS_URL is not set.
const DefaultURL = "redis://127.0.0.1:6379/0"

const (
	dialTimeout = 5 * time.Second
	scanCount   = 1000 // keys per SCAN round trip
)

// New returns the Redis URL, a fresh key prefix such as "akt1f2e3d4c5b6a7988:"
// and a pool connected to that URL. Keys the test writes should start with
// prefix: when the test ends every key matching prefix* is deleted and the
// pool is closed.
func New(t testing.TB) (url, prefix string, pool *redis.Pool) {
	t.Helper()
	url = os.Getenv("REDIS_URL")
	if url == "" {
		url = DefaultURL
	}
	pool = &redis.Pool{
		MaxIdle:     4,
		IdleTimeout: time.Minute,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialURLContext(ctx, url, redis.DialConnectTimeout(dialTimeout))
		},
	}
	if err := ping(pool); err != nil {
		_ = pool.Close()
		testenv.Missing(t, "redistest: Redis at "+url, err, "set REDIS_URL")
	}
	prefix = "akt" + randomHex(t, 8) + ":"
	t.Cleanup(func() {
		if err := deletePrefix(pool, prefix); err != nil {
			t.Errorf("redistest: delete keys %s*: %v", prefix, err)
		}
		if err := pool.Close(); err != nil {
			t.Errorf("redistest: close pool: %v", err)
		}
	})
	return url, prefix, pool
}

// Keys returns the sorted, distinct keys matching the glob pattern, found
// with SCAN so that a large database is never blocked.
func Keys(t testing.TB, pool *redis.Pool, pattern string) []string {
	t.Helper()
	keys, err := scan(pool, pattern)
	if err != nil {
		t.Fatalf("redistest: scan %q: %v", pattern, err)
	}
	return keys
}

// scan returns the sorted, distinct keys matching pattern.
func scan(pool *redis.Pool, pattern string) ([]string, error) {
	conn := pool.Get()
	defer conn.Close()
	var keys []string
	cursor := "0"
	for {
		reply, err := redis.Values(conn.Do("SCAN", cursor, "MATCH", pattern, "COUNT", scanCount))
		if err != nil {
			return nil, err
		}
		var batch []string
		if _, err := redis.Scan(reply, &cursor, &batch); err != nil {
			return nil, err
		}
		keys = append(keys, batch...)
		if cursor == "0" {
			break
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil // SCAN may return a key more than once
}

// deletePrefix deletes every key that starts with prefix, in batches.
func deletePrefix(pool *redis.Pool, prefix string) error {
	keys, err := scan(pool, prefix+"*")
	if err != nil {
		return err
	}
	conn := pool.Get()
	defer conn.Close()
	for batch := range slices.Chunk(keys, scanCount) {
		args := make([]any, len(batch))
		for i, k := range batch {
			args[i] = k
		}
		if _, err := conn.Do("DEL", args...); err != nil {
			return err
		}
	}
	return nil
}

// ping checks that the pool can reach the server.
func ping(pool *redis.Pool) error {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Do("PING")
	return err
}

// randomHex returns n random bytes as lowercase hex.
func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("redistest: random prefix: %v", err)
	}
	return hex.EncodeToString(b)
}
