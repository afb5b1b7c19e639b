package sockettest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"
)

// exitWait bounds how long Close waits for node to exit before killing it.
const exitWait = 5 * time.Second

// Options configure a client.
type Options struct {
	// Transports are the engine.io transports the client may use, such as
	// ["websocket"] or ["polling"]; nil means ["websocket"].
	Transports []string
	// Rooms are joined as soon as the client connects.
	Rooms []string
	// Ack makes join and leave ask for an acknowledgement, reported as an
	// "ack" message.
	Ack bool
	// Auth, when not nil, is the handshake's auth data as it is, instead of
	// {"token": token}; tests use it to send malformed auth data.
	Auth any
}

// Message is one happening reported by the client; which fields are set
// depends on Type (see the package doc).
type Message struct {
	// Type is connect, connect_error, ack, ack_timeout, event, disconnect,
	// error, or invalid for a line that is not JSON.
	Type string `json:"type"`
	// ID and Transport describe a connect: the socket id and "websocket" or
	// "polling".
	ID        string `json:"id,omitempty"`
	Transport string `json:"transport,omitempty"`
	// Message and Data are a connect_error's (or Message an error's).
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Cmd (join, leave or emit), Event, Room and Ack describe an ack or
	// ack_timeout; Ack is the server's answer.
	Cmd   string          `json:"cmd,omitempty"`
	Event string          `json:"event,omitempty"`
	Room  string          `json:"room,omitempty"`
	Ack   json.RawMessage `json:"ack,omitempty"`
	// Payload (the first argument), Args and At (milliseconds since the
	// epoch, when received) describe an event.
	Payload json.RawMessage   `json:"payload,omitempty"`
	Args    []json.RawMessage `json:"args,omitempty"`
	At      int64             `json:"at,omitempty"`
	// Reason is a disconnect's, such as "io server disconnect".
	Reason string `json:"reason,omitempty"`
	// Line is the line the client printed.
	Line string `json:"-"`
}

// Client is a running node socket.io client. Its methods are safe for
// concurrent use.
type Client struct {
	t      testing.TB
	cmd    *exec.Cmd
	exited chan struct{}
	stderr bytes.Buffer // written by exec until exited is closed

	writeMu sync.Mutex
	stdin   io.WriteCloser

	mu      sync.Mutex
	inbox   []Message // reported, not yet taken
	eof     bool
	changed chan struct{} // closed and replaced whenever inbox or eof changes

	closeOnce sync.Once
}

// Start runs a client connecting to url (the server's base URL, such as an
// httptest.Server's) with token as auth.token; an empty token sends no auth
// data. The client is closed when the test ends.
func Start(t testing.TB, url, token string, opts Options) *Client {
	t.Helper()
	dir := ensureClient(t)
	cfg := map[string]any{"url": url, "transports": opts.Transports, "rooms": opts.Rooms, "ack": opts.Ack}
	if opts.Transports == nil {
		cfg["transports"] = []string{"websocket"}
	}
	if token != "" {
		cfg["token"] = token
	}
	if opts.Auth != nil {
		cfg["auth"] = opts.Auth
	}
	c := &Client{t: t, exited: make(chan struct{}), changed: make(chan struct{})}
	c.cmd = exec.Command("node", "client.mjs")
	c.cmd.Dir = dir
	c.cmd.Stderr = &c.stderr
	stdout, err := c.cmd.StdoutPipe()
	if err == nil {
		c.stdin, err = c.cmd.StdinPipe()
	}
	if err == nil {
		err = c.cmd.Start()
	}
	if err != nil {
		t.Fatalf("sockettest: start node: %v", err)
	}
	go c.read(stdout)
	t.Cleanup(c.Close)
	c.send(cfg) // the configuration goes first, on stdin: a token never shows in ps
	return c
}

// read parses the client's output into the inbox until it ends, then
// waits for the process.
func (c *Client) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		m := Message{Line: sc.Text()}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			m = Message{Type: "invalid", Line: sc.Text()}
		}
		c.update(func() { c.inbox = append(c.inbox, m) })
	}
	_ = c.cmd.Wait()
	close(c.exited)
	c.update(func() { c.eof = true })
}

func (c *Client) update(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// Next takes the earliest message not yet taken, waiting for one until ctx
// is done.
func (c *Client) Next(ctx context.Context) (Message, error) {
	return c.take(ctx, "any message", func(Message) bool { return true })
}

// WaitFor takes the earliest message of type typ for which pred (nil: any)
// holds, waiting for it until ctx is done. Other messages stay for later
// calls.
func (c *Client) WaitFor(ctx context.Context, typ string, pred func(Message) bool) (Message, error) {
	return c.take(ctx, "a "+typ+" message", func(m Message) bool {
		return m.Type == typ && (pred == nil || pred(m))
	})
}

func (c *Client) take(ctx context.Context, what string, match func(Message) bool) (Message, error) {
	for {
		c.mu.Lock()
		if i := slices.IndexFunc(c.inbox, match); i >= 0 {
			m := c.inbox[i]
			c.inbox = slices.Delete(c.inbox, i, i+1)
			c.mu.Unlock()
			return m, nil
		}
		eof, changed, pending := c.eof, c.changed, c.pendingLocked()
		c.mu.Unlock()
		if eof {
			return Message{}, fmt.Errorf("sockettest: waiting for %s: client exited (pending: %s; stderr: %s)",
				what, pending, c.stderrText())
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("sockettest: waiting for %s: %w (pending: %s)", what, ctx.Err(), pending)
		}
	}
}

func (c *Client) pendingLocked() string {
	var b bytes.Buffer
	for _, m := range c.inbox {
		b.WriteString(m.Line)
		b.WriteByte(' ')
	}
	return b.String()
}

// stderrText returns what node printed on standard error, once it exited.
func (c *Client) stderrText() string {
	select {
	case <-c.exited:
		return c.stderr.String()
	default:
		return "(still running)"
	}
}

// NoEvent asserts that the client receives no event named event within
// window. This is the one place where waiting a fixed time is the assertion
// itself: absence can only be observed over a window. The window should be
// several times what a delivery takes (a few hundred milliseconds locally).
// Other messages stay for later calls.
func (c *Client) NoEvent(t testing.TB, window time.Duration, event string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	m, err := c.take(ctx, "event "+event, func(m Message) bool { return m.Type == "event" && m.Event == event })
	switch {
	case err == nil:
		t.Errorf("sockettest: got event %s within %v, want none: %s", event, window, m.Line)
	case !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("sockettest: while expecting no %s event: %v", event, err)
	}
}

// StaysConnected asserts that the client is not disconnected within window
// (the same kind of window as NoEvent's). Other messages stay for later
// calls.
func (c *Client) StaysConnected(t testing.TB, window time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	m, err := c.take(ctx, "disconnect", func(m Message) bool { return m.Type == "disconnect" })
	switch {
	case err == nil:
		t.Errorf("sockettest: disconnected within %v, want connected: %s", window, m.Line)
	case !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("sockettest: while expecting to stay connected: %v", err)
	}
}

// Join asks the client to join room.
func (c *Client) Join(room string) { c.send(map[string]any{"cmd": "join", "room": room}) }

// Leave asks the client to leave room.
func (c *Client) Leave(room string) { c.send(map[string]any{"cmd": "leave", "room": room}) }

// Emit makes the client emit event with args as they are (any JSON value,
// for malformed input), asking for an acknowledgement when ack is true.
func (c *Client) Emit(event string, ack bool, args ...any) {
	if args == nil {
		args = []any{}
	}
	c.send(map[string]any{"cmd": "emit", "event": event, "args": args, "ack": ack})
}

func (c *Client) send(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		c.t.Errorf("sockettest: encode command: %v", err)
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		c.t.Errorf("sockettest: send command to node: %v (stderr: %s)", err, c.stderrText())
	}
}

// Close closes the connection and ends the node process, killing it if it
// does not exit within a few seconds. It is called when the test ends.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.writeMu.Lock()
		_, _ = c.stdin.Write([]byte(`{"cmd":"close"}` + "\n"))
		_ = c.stdin.Close()
		c.writeMu.Unlock()
		select {
		case <-c.exited:
		case <-time.After(exitWait):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	})
}

// ReceiveAll takes c's event messages named event until one has come for
// every id in want (the payload's string field key, such as "postId"), or
// until ctx ends, then goes on taking for quiet to catch late duplicates.
// It returns, sorted, the ids that never came and, as "id×n", those that
// came more than once or were not wanted; a payload without the field
// counts as the id "".
func (c *Client) ReceiveAll(ctx context.Context, event, key string, want map[string]bool, quiet time.Duration) (missing, extra []string) {
	seen := map[string]int{}
	take := func(ctx context.Context) bool {
		m, err := c.WaitFor(ctx, "event", func(m Message) bool { return m.Event == event })
		if err != nil {
			return false
		}
		var fields map[string]any
		_ = json.Unmarshal(m.Payload, &fields)
		id, _ := fields[key].(string)
		seen[id]++
		return true
	}
	for len(seen) < len(want) && take(ctx) {
	}
	quietCtx, cancel := context.WithTimeout(context.Background(), quiet)
	defer cancel()
	for take(quietCtx) {
	}
	for id := range want {
		if seen[id] == 0 {
			missing = append(missing, id)
		}
	}
	for id, n := range seen {
		if n > 1 || !want[id] {
			extra = append(extra, fmt.Sprintf("%s×%d", id, n))
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}
