package events

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/google/uuid"
)

func TestConnectJoinsUserRoom(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s, ts := f.server(nil)
			id, tok := f.user()
			c := f.connect(ts.URL, tok, sockettest.Options{Transports: tr.list})
			other, otherTok := f.user()
			o := f.connect(ts.URL, otherTok, sockettest.Options{Transports: tr.list})
			if got := s.Connected(); got != 2 {
				t.Errorf("Connected: got %d, want 2", got)
			}

			if err := s.Emit(wait(t), UserRoom(id), TestSocketEventOne, map[string]any{"n": 1}); err != nil {
				t.Fatalf("Emit: %v", err)
			}
			if got := string(waitEvent(t, c, TestSocketEventOne)); got != `{"n":1}` {
				t.Errorf("payload: got %s, want {\"n\":1}", got)
			}
			o.NoEvent(t, quiet, TestSocketEventOne)
			_ = other
		})
	}
}

func TestConnectRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	stale, _ := f.user()
	staleTok := f.token("user", stale, 0) // the user's version is 1
	admin := f.token("admin", uuid.Must(uuid.NewV7()), 1)
	for _, tc := range []struct {
		name  string
		token string
		auth  any
	}{
		{"no auth", "", nil},
		{"garbage token", "not-a-jwt", nil},
		{"stale token version", staleTok, nil},
		{"admin token", admin, nil},
		{"unknown user", f.token("user", uuid.Must(uuid.NewV7()), 1), nil},
		{"token not a string", "", map[string]any{"token": 42}},
		{"empty token", "", map[string]any{"token": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := sockettest.Start(t, ts.URL, tc.token, sockettest.Options{Auth: tc.auth})
			m, err := c.Next(wait(t))
			if err != nil {
				t.Fatal(err)
			}
			if m.Type != "connect_error" || m.Message != "UNAUTHORIZED" || string(m.Data) != `{"error":"UNAUTHORIZED"}` {
				t.Errorf("got %s, want connect_error UNAUTHORIZED with data {\"error\":\"UNAUTHORIZED\"}", m.Line)
			}
		})
	}
}

func TestJoinRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	_, testTS := f.server(func(c *ServerConfig) { c.AllowTestRooms = true })
	id, tok := f.user()
	other := uuid.Must(uuid.NewV7())

	c := f.connect(ts.URL, tok, sockettest.Options{Ack: true})
	for _, tc := range []struct {
		room string
		ok   bool
	}{
		{RoomFeed, true},
		{RoomGlobal, true},
		{UserRoom(id), true},
		{UserRoom(other), false},
		{"ADMIN", false},
		{"TEST1", false}, // test rooms are off
		{"feed", false},
		{sessionRoom(id), false},
		{"", false},
	} {
		c.Join(tc.room)
		if ok, code := ackOf(t, c, "join", tc.room); ok != tc.ok || (!ok && code != "FORBIDDEN") {
			t.Errorf("join %q: got ok=%v error=%q, want ok=%v", tc.room, ok, code, tc.ok)
		}
	}
	c.Leave(UserRoom(other))
	if ok, code := ackOf(t, c, "leave", UserRoom(other)); ok || code != "FORBIDDEN" {
		t.Errorf("leave another user's room: got ok=%v error=%q, want FORBIDDEN", ok, code)
	}

	tc := f.connect(testTS.URL, tok, sockettest.Options{Ack: true})
	tc.Join("TEST_ROOM_1")
	if ok, _ := ackOf(t, tc, "join", "TEST_ROOM_1"); !ok {
		t.Error("join TEST_ROOM_1 with test rooms allowed: got FORBIDDEN, want ok")
	}
}

// TestMalformedJoin sends join and leave messages whose room is missing or
// not a string: each is FORBIDDEN, and the socket keeps working.
func TestMalformedJoin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, ts := f.server(nil)
	_, tok := f.user()
	c := f.connect(ts.URL, tok, sockettest.Options{Ack: true})
	for _, args := range [][]any{
		{}, {42}, {nil}, {true}, {map[string]any{"room": RoomFeed}}, {[]any{RoomFeed}},
	} {
		for _, event := range []string{"join", "leave"} {
			c.Emit(event, true, args...)
			m, err := c.WaitFor(wait(t), "ack", func(m sockettest.Message) bool { return m.Cmd == "emit" })
			if err != nil {
				t.Fatalf("%s %v: %v", event, args, err)
			}
			if ok, code := decodeAck(t, m); ok || code != "FORBIDDEN" {
				t.Errorf("%s %v: got %s, want FORBIDDEN", event, args, m.Ack)
			}
		}
	}
	c.Emit("join", false, 42)         // no acknowledgement asked
	c.Emit("unknown-event", false, 1) // ignored
	c.Join(RoomFeed)
	if ok, _ := ackOf(t, c, "join", RoomFeed); !ok {
		t.Fatal("join FEED after malformed messages: got FORBIDDEN")
	}
	if err := s.Emit(wait(t), RoomFeed, TestSocketEventTwo, "still here"); err != nil {
		t.Fatal(err)
	}
	if got := string(waitEvent(t, c, TestSocketEventTwo)); got != `"still here"` {
		t.Errorf("payload: got %s", got)
	}
}

func TestLeave(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, ts := f.server(nil)
	_, tok := f.user()
	c := f.connect(ts.URL, tok, sockettest.Options{Ack: true, Rooms: []string{RoomFeed}})
	if ok, _ := ackOf(t, c, "join", RoomFeed); !ok {
		t.Fatal("join FEED: got FORBIDDEN")
	}
	emit := func(n int) {
		if err := s.Emit(wait(t), RoomFeed, TestSocketEventOne, n); err != nil {
			t.Fatalf("Emit: %v", err)
		}
	}
	emit(1)
	if got := string(waitEvent(t, c, TestSocketEventOne)); got != "1" {
		t.Errorf("payload: got %s, want 1", got)
	}
	c.Leave(RoomFeed)
	if ok, _ := ackOf(t, c, "leave", RoomFeed); !ok {
		t.Fatal("leave FEED: got FORBIDDEN")
	}
	emit(2)
	c.NoEvent(t, quiet, TestSocketEventOne)
}

// TestSingleProcess runs the server without Redis: emits and disconnects
// stay in the process.
func TestSingleProcess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, ts := f.server(func(c *ServerConfig) { c.Redis = nil })
	id, tok := f.user()
	c := f.connect(ts.URL, tok, sockettest.Options{Ack: true, Rooms: []string{RoomFeed}})
	ackOf(t, c, "join", RoomFeed)
	payload := PostPublishedPayload{PostID: uuid.Must(uuid.NewV7()), Title: "t"}
	if err := s.Emit(wait(t), RoomFeed, PostPublished, payload); err != nil {
		t.Fatal(err)
	}
	var got PostPublishedPayload
	if err := json.Unmarshal(waitEvent(t, c, PostPublished), &got); err != nil || got.PostID != payload.PostID || got.Title != "t" {
		t.Errorf("payload: got %+v (%v), want %+v", got, err, payload)
	}
	if err := s.DisconnectUser(wait(t), UserOwner, id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitFor(wait(t), "disconnect", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Emit(wait(t), "", TestSocketEventOne, 1); err == nil {
		t.Error("Emit to an empty room: got nil error")
	}
	if err := s.Emit(wait(t), RoomFeed, "connect", 1); err == nil {
		t.Error("Emit of a reserved event: got nil error")
	}
	if err := s.Emit(wait(t), RoomFeed, TestSocketEventOne, make(chan int)); err == nil {
		t.Error("Emit of a payload JSON cannot encode: got nil error")
	}
	if err := NewRedisEmitter(f.rc, f.key).Emit(wait(t), RoomFeed, TestSocketEventOne, make(chan int)); err == nil {
		t.Error("RedisEmitter.Emit of a payload JSON cannot encode: got nil error")
	}
}

func TestNoop(t *testing.T) {
	var e Emitter = Noop{}
	if err := e.Emit(context.Background(), RoomFeed, PostPublished, nil); err != nil {
		t.Error(err)
	}
	if err := e.DisconnectUser(context.Background(), UserOwner, uuid.Nil); err != nil {
		t.Error(err)
	}
}

func TestUserRoom(t *testing.T) {
	id := uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	if got, want := UserRoom(id), "USER0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"; got != want {
		t.Errorf("UserRoom: got %q, want %q", got, want)
	}
}
