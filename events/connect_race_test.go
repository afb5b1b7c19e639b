package events

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	ws "github.com/gorilla/websocket"
)

// TestJoinRightBehindConnect: a packet that reaches the server right behind
// the socket.io CONNECT request is handled, not taken for a packet of no
// socket (which closes the connection: the client sees "transport close").
// socket.io v3.0.6 writes CONNECT before it registers the socket with its
// connection, so a client that joins as soon as it sees CONNECT can land in
// between; here each join is written in the same breath as the CONNECT
// request, so that every one of them arrives while the handshake is under
// way. Raw engine.io frames, 20 connections over a websocket and 20 over
// polling, where the CONNECT and the join share one POST.
func TestJoinRightBehindConnect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ts := f.server(nil)
	_, tok := f.user()
	auth, _ := json.Marshal(map[string]string{"token": tok})
	connect, join := "40"+string(auth), `421["join","FEED"]`
	t.Run("websocket", func(t *testing.T) { joinBehindConnectWebsocket(t, ts.URL, connect, join) })
	t.Run("polling", func(t *testing.T) { joinBehindConnectPolling(t, ts.URL, connect, join) })
}

// joinBehindConnectWebsocket writes connect and join in two frames at once
// on each of 20 websockets and reads until the join's acknowledgement.
func joinBehindConnectWebsocket(t *testing.T, base, connect, join string) {
	url := "ws" + strings.TrimPrefix(base, "http") + Path + "?EIO=4&transport=websocket"
	for i := range 20 {
		conn, _, err := ws.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
		for _, frame := range []string{connect, join} {
			if err := conn.WriteMessage(ws.TextMessage, []byte(frame)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "431") {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("connection %d closed before its join was acknowledged (read %q): %v", i, got, err)
			}
			got = append(got, string(msg))
		}
		if len(got) != 3 || !strings.HasPrefix(got[0], "0{") || !strings.HasPrefix(got[1], `40{"sid":`) || got[2] != `431[{"ok":true}]` {
			t.Fatalf("connection %d: frames %q, want OPEN, CONNECT, then the join's acknowledgement", i, got)
		}
		_ = conn.Close()
	}
}

// joinBehindConnectPolling opens 20 polling connections, posts connect and
// join in one payload on each, and polls until the join's acknowledgement.
func joinBehindConnectPolling(t *testing.T, base, connect, join string) {
	hc := &http.Client{Timeout: waitLimit}
	url := base + Path + "?EIO=4&transport=polling"
	for i := range 20 {
		open := pollRequest(t, hc, http.MethodGet, url, "")
		var hs struct {
			Sid string `json:"sid"`
		}
		if len(open) != 1 || !strings.HasPrefix(open[0], "0{") || json.Unmarshal([]byte(open[0][1:]), &hs) != nil {
			t.Fatalf("connection %d: handshake %q", i, open)
		}
		sidURL := url + "&sid=" + hs.Sid
		if got := pollRequest(t, hc, http.MethodPost, sidURL, connect+"\x1e"+join); len(got) != 1 || got[0] != "ok" {
			t.Fatalf("connection %d: the POST of CONNECT and join answered %q, want ok (the connection was closed)", i, got)
		}
		var got []string
		for len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "431") {
			packets := pollRequest(t, hc, http.MethodGet, sidURL, "")
			if len(packets) == 0 || packets[0] == "1" || strings.HasPrefix(packets[0], "{") {
				t.Fatalf("connection %d closed before its join was acknowledged (read %q, then %q)", i, got, packets)
			}
			got = append(got, packets...)
		}
		if len(got) != 2 || !strings.HasPrefix(got[0], `40{"sid":`) || got[1] != `431[{"ok":true}]` {
			t.Fatalf("connection %d: packets %q, want CONNECT, then the join's acknowledgement", i, got)
		}
		pollRequest(t, hc, http.MethodPost, sidURL, "1") // close
	}
}

// pollRequest makes one engine.io polling request and returns the packets
// of its answer (a body of another status is returned as it is).
func pollRequest(t *testing.T, hc *http.Client, method, url, body string) []string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return []string{string(b)}
	}
	return strings.Split(string(b), "\x1e")
}
