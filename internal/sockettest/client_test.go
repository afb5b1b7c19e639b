package sockettest_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/google/uuid"
)

// server runs a single-process socket server accepting the token "good".
func server(t *testing.T) (*events.Server, string, uuid.UUID) {
	t.Helper()
	id, sid := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	s, err := events.NewServer(events.ServerConfig{
		Verify: func(_ context.Context, tok string) (*action.Caller, error) {
			if tok != "good" {
				return nil, nil
			}
			return &action.Caller{Type: events.UserOwner, ID: id, SessionID: sid}, nil
		},
		Peek: func(tok string) (uuid.UUID, uuid.UUID, bool) { return id, sid, tok == "good" },
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(s.Close)
	return s, ts.URL, id
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestClient(t *testing.T) {
	t.Parallel()
	s, url, id := server(t)
	c := sockettest.Start(t, url, "good", sockettest.Options{Ack: true, Rooms: []string{events.RoomFeed}})

	m, err := c.Next(ctx(t))
	if err != nil || m.Type != "connect" || m.Transport != "websocket" || m.ID == "" {
		t.Fatalf("first message: got %+v (%v), want a websocket connect", m, err)
	}
	if m, err := c.WaitFor(ctx(t), "ack", nil); err != nil || m.Room != events.RoomFeed || string(m.Ack) != `{"ok":true}` {
		t.Fatalf("join ack: got %s (%v)", m.Line, err)
	}

	// Messages that do not match stay for later calls.
	_ = s.Emit(ctx(t), events.UserRoom(id), events.TestSocketEventOne, 1)
	_ = s.Emit(ctx(t), events.RoomFeed, events.TestSocketEventTwo, map[string]any{"a": "b"})
	if m, err := c.WaitFor(ctx(t), "event", func(m sockettest.Message) bool { return m.Event == events.TestSocketEventTwo }); err != nil ||
		string(m.Payload) != `{"a":"b"}` || m.At == 0 {
		t.Fatalf("event two: got %s (%v)", m.Line, err)
	}
	if m, err := c.Next(ctx(t)); err != nil || m.Event != events.TestSocketEventOne || string(m.Payload) != "1" {
		t.Fatalf("event one, kept: got %s (%v)", m.Line, err)
	}
	c.NoEvent(t, 200*time.Millisecond, events.TestSocketEventOne)
	c.StaysConnected(t, 100*time.Millisecond)

	c.Emit("join", true, 42)
	if m, err := c.WaitFor(ctx(t), "ack", nil); err != nil || m.Cmd != "emit" || !strings.Contains(string(m.Ack), "FORBIDDEN") {
		t.Fatalf("raw emit ack: got %s (%v)", m.Line, err)
	}

	c.Close()
	if _, err := c.WaitFor(ctx(t), "event", nil); err == nil || !strings.Contains(err.Error(), "client exited") {
		t.Errorf("after Close: got %v, want a client-exited error", err)
	}
}

func TestClientConnectError(t *testing.T) {
	t.Parallel()
	_, url, _ := server(t)
	c := sockettest.Start(t, url, "bad", sockettest.Options{Transports: []string{"polling"}})
	m, err := c.Next(ctx(t))
	if err != nil || m.Type != "connect_error" || m.Message != "UNAUTHORIZED" || string(m.Data) != `{"error":"UNAUTHORIZED"}` {
		t.Fatalf("got %s (%v), want connect_error UNAUTHORIZED", m.Line, err)
	}
}
