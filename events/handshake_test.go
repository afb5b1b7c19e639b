package events

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	ws "github.com/gorilla/websocket"
)

// TestConnectSentWithoutWaitingForOpen: a client may send its socket.io
// CONNECT the moment the websocket is open, before it has read the
// engine.io OPEN packet. A transport that reads it before socket.io
// listens to the connection drops it (engine.io v3.0.2 did), and the client
// then waits for the 45 s connect timeout. Every one of many such clients
// must get its OPEN and its CONNECT acknowledgement.
func TestConnectSentWithoutWaitingForOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	_, tok := f.user()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + Path + "?EIO=4&transport=websocket"
	for i := range 50 {
		conn, resp, err := ws.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("dial %d: %s", i, resp.Status)
		}
		// CONNECT to the main namespace with the token, at once.
		if err := conn.WriteMessage(ws.TextMessage, []byte(fmt.Sprintf(`40{"token":%q}`, tok))); err != nil {
			t.Fatal(err)
		}
		var got []string
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		for !connected(got) {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("client %d: no CONNECT acknowledgement (%v); read %q", i, err, got)
			}
			got = append(got, string(msg))
		}
		if !strings.HasPrefix(got[0], "0{") {
			t.Errorf("client %d: first frame %q, want the OPEN packet", i, got[0])
		}
		_ = conn.Close()
	}
}

// connected reports whether frames hold the namespace's CONNECT
// acknowledgement, `40{"sid":...}`.
func connected(frames []string) bool {
	for _, m := range frames {
		if strings.HasPrefix(m, `40{"sid"`) {
			return true
		}
	}
	return false
}
