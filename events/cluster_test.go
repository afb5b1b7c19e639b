package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"
)

// TestEmitReachesOtherInstances runs two servers with the Redis adapter: an
// emit on B, and one from a RedisEmitter with no server, reach a client of
// A, over both transports.
func TestEmitReachesOtherInstances(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			_, tsA := f.server(nil)
			b, _ := f.server(nil)
			worker := NewRedisEmitter(f.rc, f.key)
			_, tok := f.user()
			c := f.connect(tsA.URL, tok, sockettest.Options{Transports: tr.list, Ack: true, Rooms: []string{RoomFeed}})
			ackOf(t, c, "join", RoomFeed)

			for name, e := range map[string]Emitter{"server B": b, "RedisEmitter": worker} {
				want := PostPublishedPayload{
					PostID:      uuid.Must(uuid.NewV7()),
					Title:       "from " + name,
					PublishedAt: time.Date(2025, 3, 1, 12, 0, 0, 123e6, time.UTC),
				}
				if err := e.Emit(wait(t), RoomFeed, PostPublished, want); err != nil {
					t.Fatalf("%s: Emit: %v", name, err)
				}
				raw := waitEvent(t, c, PostPublished)
				var got map[string]any
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatal(err)
				}
				if len(got) != 3 || got["postId"] != want.PostID.String() || got["title"] != want.Title ||
					got["publishedAt"] != "2025-03-01T12:00:00.123Z" {
					t.Errorf("%s: payload: got %s, want postId, title and publishedAt of %+v", name, raw, want)
				}
			}
		})
	}
}

// TestDisconnectUserEverywhere disconnects a user's sockets on server A
// through server B and through a RedisEmitter; another user's socket stays,
// and leaving the USER room does not escape.
func TestDisconnectUserEverywhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, tsA := f.server(nil)
	b, _ := f.server(nil)
	worker := NewRedisEmitter(f.rc, f.key)
	id, tok := f.user()
	_, otherTok := f.user()
	other := f.connect(tsA.URL, otherTok, sockettest.Options{})

	for name, e := range map[string]Emitter{"server B": b, "RedisEmitter": worker} {
		ws := f.connect(tsA.URL, tok, sockettest.Options{Ack: true})
		polling := f.connect(tsA.URL, tok, sockettest.Options{Transports: []string{"polling"}})
		ws.Leave(UserRoom(id)) // allowed, but no way out of revocation
		if ok, _ := ackOf(t, ws, "leave", UserRoom(id)); !ok {
			t.Fatalf("%s: leave own USER room: got FORBIDDEN", name)
		}
		if err := e.DisconnectUser(wait(t), "admin", id); err != nil {
			t.Fatalf("%s: DisconnectUser(admin): %v", name, err)
		}
		if err := e.DisconnectUser(wait(t), UserOwner, id); err != nil {
			t.Fatalf("%s: DisconnectUser: %v", name, err)
		}
		for _, c := range []*sockettest.Client{ws, polling} {
			if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	if err := a.Emit(wait(t), UserRoom(f.idOf(otherTok)), TestSocketEventOne, "alive"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, other, TestSocketEventOne) // still connected after both revocations
}

// idOf returns the subject of a token issued by the fixture.
func (f *fixture) idOf(tok string) uuid.UUID {
	f.t.Helper()
	c, err := f.tokens.Parse("user", tok)
	if err != nil {
		f.t.Fatal(err)
	}
	return c.Subject
}

// TestEmitRedisDown checks that Emit and DisconnectUser fail, and quickly,
// when Redis refuses connections or accepts them and never answers.
func TestEmitRedisDown(t *testing.T) {
	t.Parallel()
	refused := closedPort(t)
	silent := silentServer(t)
	for _, tc := range []struct {
		name, addr string
		bound      time.Duration
	}{
		{"connection refused", refused, 2 * time.Second},
		{"no answer", silent, 2 * time.Second}, // the emitter's Timeout below, plus slack
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Short read timeouts: NewServer waits for the adapter's two
			// subscriptions to be answered (or to time out) on a hung Redis.
			rc := goredis.NewClient(&goredis.Options{Addr: tc.addr, ReadTimeout: 200 * time.Millisecond})
			t.Cleanup(func() { _ = rc.Close() })
			e := NewRedisEmitter(rc, "down")
			e.Timeout = 500 * time.Millisecond
			f := newFixture(t)
			s, err := NewServer(ServerConfig{Redis: rc, Key: "down", Verify: f.verify, Peek: f.peek})
			if err != nil {
				t.Fatal(err)
			}
			s.emitter.Timeout = e.Timeout
			defer func() {
				start := time.Now()
				s.Close()
				if took := time.Since(start); took > tc.bound {
					t.Errorf("Close took %v, want at most %v", took, tc.bound)
				}
			}()
			for name, call := range map[string]func(context.Context) error{
				"RedisEmitter.Emit":     func(ctx context.Context) error { return e.Emit(ctx, RoomFeed, PostPublished, 1) },
				"Server.Emit":           func(ctx context.Context) error { return s.Emit(ctx, RoomFeed, PostPublished, 1) },
				"Server.DisconnectUser": func(ctx context.Context) error { return s.DisconnectUser(ctx, UserOwner, uuid.Nil) },
			} {
				start := time.Now()
				err := call(context.Background())
				if took := time.Since(start); err == nil || took > tc.bound {
					t.Errorf("%s: got error %v after %v, want an error within %v", name, err, took, tc.bound)
				}
			}
		})
	}
}

// closedPort returns a local address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// silentServer returns the address of a local server that accepts
// connections and never answers, as a hung Redis would.
func silentServer(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// burst is how many events are emitted at once by each sender in the
// concurrency tests; 25 lost several events per socket with engine.io v2.5.0.
const burst = 25

// TestConcurrentEmitsExactlyOnce emits bursts of events at once, from
// server B and from a RedisEmitter (the worker's path), to sockets on server
// A over websocket and polling, in 10 rounds: every socket must receive every
// event exactly once (1,000 deliveries). engine.io v2.5.0 wrote only the
// first of several room broadcasts that reached a websocket together and
// dropped the rest without a word.
func TestConcurrentEmitsExactlyOnce(t *testing.T) {
	t.Parallel()
	const rounds = 10
	f := newFixture(t)
	_, tsA := f.server(nil)
	b, _ := f.server(nil)
	worker := NewRedisEmitter(f.rc, f.key)
	var clients []*sockettest.Client
	for _, tr := range transports {
		_, tok := f.user()
		c := f.connect(tsA.URL, tok, sockettest.Options{Transports: tr.list, Ack: true, Rooms: []string{RoomFeed}})
		if ok, _ := ackOf(t, c, "join", RoomFeed); !ok {
			t.Fatal("join FEED: FORBIDDEN")
		}
		clients = append(clients, c)
	}
	for round := range rounds {
		want := burstOf(t, round, map[string]Emitter{"b": b, "worker": worker})
		for i, c := range clients {
			missing, dup := c.ReceiveAll(wait(t), PostPublished, "postId", want, 0)
			if len(missing) > 0 || len(dup) > 0 {
				t.Errorf("round %d, %s client: %d of %d events missing %v, duplicated %v",
					round, transports[i].name, len(missing), len(want), missing, dup)
			}
		}
	}
	for _, c := range clients { // late duplicates of the last round
		c.NoEvent(t, quiet, PostPublished)
	}
}

// burstOf emits burst events at once from each emitter, and returns their
// ids.
func burstOf(t *testing.T, round int, emitters map[string]Emitter) map[string]bool {
	want := map[string]bool{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for name, e := range emitters {
		for i := range burst {
			id := fmt.Sprintf("%d-%s-%02d", round, name, i)
			want[id] = true
			wg.Go(func() {
				<-start
				if err := e.Emit(wait(t), RoomFeed, PostPublished, map[string]any{"postId": id}); err != nil {
					t.Errorf("Emit %s: %v", id, err)
				}
			})
		}
	}
	close(start)
	wg.Wait()
	return want
}

// TestConcurrentLocalEmitsExactlyOnce is the same burst on a server without
// Redis, whose Emit is the library's own room broadcast (io.To(room).Emit),
// the API an embedder holding the socket.io server would call.
func TestConcurrentLocalEmitsExactlyOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, ts := f.server(func(c *ServerConfig) { c.Redis = nil })
	var clients []*sockettest.Client
	for _, tr := range transports {
		_, tok := f.user()
		c := f.connect(ts.URL, tok, sockettest.Options{Transports: tr.list, Ack: true, Rooms: []string{RoomFeed}})
		if ok, _ := ackOf(t, c, "join", RoomFeed); !ok {
			t.Fatal("join FEED: FORBIDDEN")
		}
		clients = append(clients, c)
	}
	want := map[string]bool{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range burst * 2 {
		id := fmt.Sprintf("local-%02d", i)
		want[id] = true
		wg.Go(func() {
			<-start
			if err := s.Emit(wait(t), RoomFeed, PostPublished, map[string]any{"postId": id}); err != nil {
				t.Errorf("Emit %s: %v", id, err)
			}
		})
	}
	close(start)
	wg.Wait()
	for i, c := range clients {
		missing, dup := c.ReceiveAll(wait(t), PostPublished, "postId", want, quiet)
		if len(missing) > 0 || len(dup) > 0 {
			t.Errorf("%s client: %d of %d events missing %v, duplicated %v", transports[i].name, len(missing), len(want), missing, dup)
		}
	}
}

// TestEmitToRoomOfSocketIDLength emits, through another server and through
// a RedisEmitter, to a room whose name is 20 characters long, the length
// of a socket id: the socket on server A in that room must receive both.
// The library's emitter publishes such a room's events on the namespace's
// bare channel, which its Redis adapter ignores, so they were lost.
func TestEmitToRoomOfSocketIDLength(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	allowTest := func(c *ServerConfig) { c.AllowTestRooms = true }
	_, tsA := f.server(allowTest)
	b, _ := f.server(allowTest)
	worker := NewRedisEmitter(f.rc, f.key)
	room := RoomTest + "_twenty_chars_ro"
	if len(room) != 20 {
		t.Fatalf("room %q has %d characters, want 20", room, len(room))
	}
	_, tok := f.user()
	c := f.connect(tsA.URL, tok, sockettest.Options{Ack: true, Rooms: []string{room}})
	if ok, _ := ackOf(t, c, "join", room); !ok {
		t.Fatal("join: FORBIDDEN")
	}
	for name, e := range map[string]Emitter{"server B": b, "RedisEmitter": worker} {
		if err := e.Emit(wait(t), room, TestSocketEventOne, name); err != nil {
			t.Fatalf("%s: Emit: %v", name, err)
		}
		if got := waitEvent(t, c, TestSocketEventOne); string(got) != `"`+name+`"` {
			t.Errorf("%s: got payload %s", name, got)
		}
	}
}
