package redistest

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/testenv"
)

func TestPrefixKeysDeletedOnCleanup(t *testing.T) {
	var url, prefix, outside string
	t.Run("writer", func(t *testing.T) {
		var pool *redis.Pool
		url, prefix, pool = New(t)
		if !regexp.MustCompile(`^akt[0-9a-f]{16}:$`).MatchString(prefix) {
			t.Errorf("prefix: got %q, want akt<16 hex>:", prefix)
		}
		conn := pool.Get()
		defer conn.Close()
		var want []string
		for i := range 2500 { // more than one SCAN page and one DEL batch
			key := fmt.Sprintf("%sk:%04d", prefix, i)
			want = append(want, key)
			if _, err := conn.Do("SET", key, i); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.Do("HSET", prefix+"hash", "f", "v"); err != nil {
			t.Fatal(err)
		}
		// Shares the prefix's characters but not the prefix itself.
		outside = prefix[:len(prefix)-1] + "-outside"
		if _, err := conn.Do("SET", outside, 1); err != nil {
			t.Fatal(err)
		}
		if got := Keys(t, pool, prefix+"k:*"); !slices.Equal(got, want) {
			t.Errorf("Keys: got %d keys, want %d sorted keys", len(got), len(want))
		}
	})
	if url == "" {
		t.Skip("writer was skipped")
	}

	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	defer pool.Close()
	if left := Keys(t, pool, prefix+"*"); len(left) != 0 {
		t.Errorf("keys left under %s: got %d, want 0", prefix, len(left))
	}
	conn := pool.Get()
	defer conn.Close()
	if n, err := redis.Int(conn.Do("DEL", outside)); err != nil || n != 1 {
		t.Errorf("key outside the prefix: got deleted=%d (%v), want 1 (it survived cleanup)", n, err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Setenv("REDIS_URL", "redis://127.0.0.1:1/0")
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			skipped, fatal := testenv.Record(t, func(tb testing.TB) { New(tb) })
			if ci == "true" && fatal == "" {
				t.Errorf("CI=true: got skipped=%q, want a fatal failure", skipped)
			}
			if ci == "" && skipped == "" {
				t.Errorf("CI unset: got fatal=%q, want a skip", fatal)
			}
		})
	}
}
