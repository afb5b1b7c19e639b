package events

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestJoinRightBehindConnect: a packet that reaches the server as soon as
// its socket is connected is handled, not taken for one of no socket (which
// closes the connection: the client sees "transport close"). A socket.io
// client sends its first join when it sees CONNECT, which socket.io writes
// before it registers the socket with the connection; here each join is
// sent right behind the CONNECT request, so that it always arrives in that
// window, as it does by chance on a busy machine. Raw engine.io frames over
// a websocket, 20 connections.
func TestJoinRightBehindConnect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	_, tok := f.user()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + Path + "?EIO=4&transport=websocket"
	auth, _ := json.Marshal(map[string]string{"token": tok})
	for i := range 20 {
		ws, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(waitLimit))
		if open := readFrame(t, ws); !strings.HasPrefix(open, "0{") {
			t.Fatalf("engine.io open packet %q", open)
		}
		for _, frame := range []string{"40" + string(auth), `421["join","FEED"]`} {
			if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("connection %d closed before the join was acknowledged (got %q): %v", i, got, err)
			}
			got = append(got, string(msg))
			if strings.HasPrefix(string(msg), "431") {
				break
			}
		}
		if want := []string{`40{"sid":`, `431[{"ok":true}]`}; len(got) != 2 || !strings.HasPrefix(got[0], want[0]) || got[1] != want[1] {
			t.Fatalf("connection %d: frames %q, want CONNECT then the join's ack", i, got)
		}
		_ = ws.Close()
	}
}

func readFrame(t *testing.T, ws *websocket.Conn) string {
	t.Helper()
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}
