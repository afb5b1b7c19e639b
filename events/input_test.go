package events

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
	goredis "github.com/redis/go-redis/v9"
)

// TestOversizedMessageClosesConnection sends a join whose room is bigger
// than MaxMessageBytes: the server drops that connection and keeps serving.
func TestOversizedMessageClosesConnection(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s, ts := f.server(nil)
			_, tok := f.user()
			c := f.connect(ts.URL, tok, sockettest.Options{Transports: tr.list, Ack: true})
			c.Emit("join", true, strings.Repeat("T", 2*MaxMessageBytes))
			if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
				t.Fatal(err)
			}
			again := f.connect(ts.URL, tok, sockettest.Options{Transports: tr.list, Ack: true, Rooms: []string{RoomFeed}})
			if ok, _ := ackOf(t, again, "join", RoomFeed); !ok {
				t.Error("join FEED after an oversized message: got FORBIDDEN")
			}
			poll.Until(t, waitLimit, "one socket left", func() bool { return s.Connected() == 1 })
			again.Close()
			poll.Until(t, waitLimit, "no socket left", func() bool { return s.Connected() == 0 })
		})
	}
}

// TestHandlerGuard checks the HTTP guard: other paths are not found, and a
// polling body of unknown length is cut at MaxMessageBytes.
func TestHandlerGuard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	post := func(size int) int {
		t.Helper()
		// An io.Reader of unknown length is sent chunked, without Content-Length.
		body := io.MultiReader(strings.NewReader(strings.Repeat("x", size)))
		resp, err := http.Post(ts.URL+Path+"?EIO=4&transport=polling&sid=unknown", "text/plain", body)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(MaxMessageBytes + 1); got != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body over the limit: got %d, want 413", got)
	}
	if got := post(10); got != http.StatusBadRequest { // engine.io: unknown session id
		t.Errorf("chunked body under the limit: got %d, want engine.io's 400", got)
	}
	resp, err := http.Get(ts.URL + "/elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /elsewhere: got %d, want 404", resp.StatusCode)
	}
}

// TestRedisDownIsPaced checks that the adapter's subscription loops, which
// retry at once after an error (millions of times a second), are paced while
// Redis refuses connections.
func TestRedisDownIsPaced(t *testing.T) {
	t.Parallel()
	rc := goredis.NewClient(&goredis.Options{Addr: closedPort(t)})
	t.Cleanup(func() { _ = rc.Close() })
	f := newFixture(t)
	s, err := NewServer(ServerConfig{Redis: rc, Key: "down", Verify: f.verify, Peek: f.peek})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const window = time.Second // a rate is measured over a window
	time.Sleep(window)
	// Two loops, one error per redisRetryPause each, plus slack.
	if n, limit := s.redisErrors.Load(), int64(2*window/redisRetryPause+4); n > limit {
		t.Errorf("adapter errors in %v: got %d, want at most %d", window, n, limit)
	}
}

func TestNewServerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, cfg := range map[string]ServerConfig{
		"no Verify": {Peek: f.peek},
		"no Peek":   {Verify: f.verify},
		"glob key":  {Verify: f.verify, Peek: f.peek, Key: "a*b"},
		"class key": {Verify: f.verify, Peek: f.peek, Key: "a[b]"},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("%s: NewServer: got nil error", name)
		}
	}
}

// TestCORS checks that only the configured origins get CORS headers.
func TestCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(func(c *ServerConfig) { c.CORSOrigins = []string{"https://app.example"} })
	for origin, allowed := range map[string]bool{"https://app.example": true, "https://evil.example": false} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+Path+"?EIO=4&transport=polling", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		// engine.io answers a refused origin with the literal value "false",
		// which no browser matches.
		if got := resp.Header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
			t.Errorf("Origin %s: got Access-Control-Allow-Origin %q, want the origin: %v", origin, got, allowed)
		}
		if allowed && resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("Origin %s: credentials not allowed", origin)
		}
	}
}
