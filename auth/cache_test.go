package auth

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
)

func TestVerifiedCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := now
	tokens, err := NewTokens([]byte("a cache test secret of at least 32 bytes"), "", time.Minute, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7())
	tok, _, err := tokens.Issue("user", id, id, 3, action.App)
	if err != nil {
		t.Fatal(err)
	}
	first, err := tokens.Parse("user", tok)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tokens.cache.get(tok, clock); !ok {
		t.Fatal("a verified token was not cached")
	}
	t.Run("a hit answers the same claims", func(t *testing.T) {
		got, err := tokens.Parse("user", tok)
		if err != nil || !reflect.DeepEqual(got, first) {
			t.Errorf("got %+v, %v; want %+v", got, err, first)
		}
	})
	t.Run("a hit for another owner type is refused", func(t *testing.T) {
		if _, err := tokens.Parse("admin", tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("got %v, want ErrInvalidToken", err)
		}
	})
	t.Run("a tampered twin is not served from the cache", func(t *testing.T) {
		if _, err := tokens.Parse("user", tok[:len(tok)-1]+"A"); !errors.Is(err, ErrInvalidToken) && tok[len(tok)-1] != 'A' {
			t.Errorf("got %v, want ErrInvalidToken", err)
		}
	})
	t.Run("a non-canonical spelling of the same token is refused", func(t *testing.T) {
		// The signature's last base64url character carries 4 bits and 2
		// unused ones; setting an unused bit leaves the decoded bytes
		// unchanged, so only strict decoding tells the twin apart.
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, tok[len(tok)-1])
		if last < 0 || last&3 != 0 {
			t.Fatalf("last character %q is not canonical base64url", tok[len(tok)-1])
		}
		twin := tok[:len(tok)-1] + string(alphabet[last|1])
		if _, err := tokens.Parse("user", twin); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("got %v, want ErrInvalidToken", err)
		}
	})
	t.Run("expiry is checked on every hit", func(t *testing.T) {
		clock = now.Add(time.Minute + ClockSkew)
		defer func() { clock = now }()
		if _, err := tokens.Parse("user", tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("an expired cached token: got %v, want ErrInvalidToken", err)
		}
	})
	t.Run("a clock moved back before iat misses", func(t *testing.T) {
		if _, ok := tokens.cache.get(tok, now.Add(-ClockSkew-time.Second)); ok {
			t.Error("a token issued in the future was served from the cache")
		}
	})
	t.Run("the cache is bounded", func(t *testing.T) {
		var c verifiedCache
		for i := 0; i < 3*verifiedCacheSize; i++ {
			c.put(fmt.Sprintf("token-%d", i), first)
		}
		total := 0
		for i := range c.shards {
			total += len(c.shards[i].m)
		}
		if total > verifiedCacheSize {
			t.Errorf("%d entries, limit %d", total, verifiedCacheSize)
		}
	})
}

// Real tokens spread over every shard (keyed on the last character, 5 of
// the 16 shards were never used).
func TestVerifiedCacheUsesEveryShard(t *testing.T) {
	tokens, err := NewTokens([]byte("a cache test secret of at least 32 bytes"), "", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1600
	for i := 0; i < n; i++ {
		tok, _, err := tokens.Issue("user", uuid.Must(uuid.NewV7()), testSID, int64(i), action.Web)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tokens.Parse("user", tok); err != nil {
			t.Fatal(err)
		}
	}
	for i := range tokens.cache.shards {
		// 100 expected per shard; fewer than 40 is vanishingly unlikely
		// for a uniform hash.
		if got := len(tokens.cache.shards[i].m); got < 40 {
			t.Errorf("shard %d holds %d of %d tokens", i, got, n)
		}
	}
}
