package events

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/dependency"
	"github.com/google/uuid"
	"github.com/zishang520/socket.io/servers/socket/v3"
)

// Codes sent to clients, as in the HTTP API's error bodies.
const (
	codeUnauthorized = "UNAUTHORIZED"
	codeForbidden    = "FORBIDDEN"
	codeInternal     = "INTERNAL_SERVER_ERROR"
	codeUnavailable  = "SERVICE_UNAVAILABLE"
)

// maxRoomLength bounds a room name a client may join (TEST rooms are
// otherwise free-form).
const maxRoomLength = 128

// maxTokenLength bounds the token sent to Verify; access tokens are far
// shorter.
const maxTokenLength = 4096

// authenticate is the namespace middleware: it verifies auth.token and, for
// a user, puts the socket in its rooms before the client learns it is
// connected, so an event emitted right after "connect" reaches it.
//
// The rooms are joined before the session is checked in the database, and
// onConnection checks it once more when the socket is connected: a session
// that ends before that check is refused by it, and one that ends after it
// sends its disconnect to a room the connected socket is in.
func (s *Server) authenticate(sock *socket.Socket, next func(*socket.ExtendedError)) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("socket authentication panicked", "panic", r, "stack", string(debug.Stack()))
			next(connectError(codeInternal))
		}
	}()
	token := handshakeToken(sock)
	user, sid, ok := s.peek(token)
	if !ok {
		next(connectError(codeUnauthorized))
		return
	}
	sock.Join(socket.Room(UserRoom(user)), socket.Room(ownerRoom(user)), socket.Room(sessionRoom(sid)))
	caller, err := s.caller(token)
	if code := s.refusal(caller, err, user, sid); code != "" {
		next(connectError(code)) // socket.io then takes the socket out of every room
		return
	}
	// Any-listeners run in order on the connection's reading goroutine, while
	// socket.io runs each On listener on a goroutine of its own: a "leave"
	// right after a "join" could then be applied first.
	sock.OnAny(s.onMessage(sock, caller.ID))
	s.bindToSession(sock, caller)
	s.log.Debug("socket connected", "user", caller.ID, "socket", sock.Id())
	next(nil)
	s.awaitConnected(sock)
}

// connectSettle bounds how long a handshake waits for socket.io to finish
// connecting its socket.
const connectSettle = 5 * time.Second

// awaitConnected returns once socket.io has finished connecting sock, or
// at once when the connection is no longer open, after connectSettle at
// most. The middleware runs on the goroutine that reads the connection
// (a websocket's reader, a polling POST's handler), and next only queues
// the connecting on the socket's task queue, where socket.io (v3.0.6)
// writes the client's CONNECT and only then registers the socket with its
// connection. A packet the client sends as soon as it sees CONNECT (the
// first join of a fresh socket) could be read in between, be taken for a
// packet of no socket, and have the connection closed ("transport close").
// Holding the reader until a task queued behind the connecting has run
// closes that window: the queue runs its tasks in order. The queue drops
// tasks once socket.io has given the socket up, which it does when the
// connection closed during the handshake: then nothing is waited for.
func (s *Server) awaitConnected(sock *socket.Socket) {
	done := make(chan struct{})
	sock.Enqueue(func() { close(done) })
	if sock.Conn().ReadyState() != "open" {
		return
	}
	t := time.NewTimer(connectSettle)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// refusal is the code a handshake is refused with, or "" when caller (the
// verified token of user's session sid) may connect.
func (s *Server) refusal(caller *action.Caller, err error, user, sid uuid.UUID) string {
	down, unavailable := dependency.As(err)
	switch {
	case unavailable:
		s.log.Warn("socket authentication: a dependency is unavailable", "dependency", down.Name, "error", err)
		return codeUnavailable
	case err != nil:
		s.log.Error("socket authentication failed", "error", err)
		return codeInternal
	case caller == nil || caller.ID != user || caller.SessionID != sid:
		return codeUnauthorized
	}
	return ""
}

// handshakeToken returns the handshake's auth.token, or "" when it is
// missing, not a string or too long.
func handshakeToken(sock *socket.Socket) string {
	token, _ := sock.Handshake().Auth["token"].(string)
	if len(token) > maxTokenLength {
		return ""
	}
	return token
}

// caller verifies a handshake token. A missing, malformed or invalid token,
// or a caller of another owner type, gives a nil caller.
func (s *Server) caller(token string) (*action.Caller, error) {
	if token == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, verifyTimeout)
	defer cancel()
	caller, err := s.verify(ctx, token)
	if err != nil || caller == nil {
		return nil, err
	}
	if caller.Type != UserOwner {
		return nil, nil
	}
	return caller, nil
}

func connectError(code string) *socket.ExtendedError {
	return socket.NewExtendedError(code, map[string]any{"error": code})
}

// onMessage handles a socket's "join" and "leave" messages, whose first
// argument is a room name; other messages are ignored. When the client asked
// for an acknowledgement it gets {"ok":true} or {"ok":false,"error":"FORBIDDEN"};
// a missing or non-string room is FORBIDDEN.
func (s *Server) onMessage(sock *socket.Socket, user uuid.UUID) func(...any) {
	own := UserRoom(user)
	return func(args ...any) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("socket message handler panicked", "panic", r, "stack", string(debug.Stack()))
			}
		}()
		if len(args) == 0 {
			return
		}
		event, _ := args[0].(string)
		if event != "join" && event != "leave" {
			return
		}
		args = args[1:]
		var ack socket.Ack
		if n := len(args); n > 0 {
			if a, ok := args[n-1].(socket.Ack); ok {
				ack, args = a, args[:n-1]
			}
		}
		room := ""
		if len(args) > 0 {
			room, _ = args[0].(string)
		}
		allowed := s.mayUse(room, own)
		if allowed && event == "join" {
			sock.Join(socket.Room(room))
		} else if allowed {
			sock.Leave(socket.Room(room))
		}
		if ack != nil {
			ack([]any{answer(allowed)}, nil)
		}
	}
}

// mayUse reports whether a socket of the user whose room is own may join or
// leave room.
func (s *Server) mayUse(room, own string) bool {
	switch {
	case room == RoomFeed, room == RoomGlobal, room == own:
		return true
	case s.allowTest && strings.HasPrefix(room, RoomTest):
		return len(room) <= maxRoomLength
	}
	return false
}

func answer(ok bool) map[string]any {
	if ok {
		return map[string]any{"ok": true}
	}
	return map[string]any{"ok": false, "error": codeForbidden}
}

// guard serves only Path and bounds polling request bodies: engine.io
// checks Content-Length against maxHttpBufferSize but reads a body of unknown
// length (chunked) without limit.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, Path) {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodPost && r.ContentLength < 0 {
			body, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageBytes+1))
			_ = r.Body.Close()
			if err != nil || len(body) > MaxMessageBytes {
				http.Error(w, fmt.Sprintf("body over %d bytes", MaxMessageBytes), http.StatusRequestEntityTooLarge)
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}

// sessionRetry is how soon a socket checks its session again when the
// check failed (the database is unreachable, say): the socket stays.
const sessionRetry = 5 * time.Second

// sessionBinding is what a socket keeps of the session it connected in.
type sessionBinding struct {
	user, session uuid.UUID
	tokenVersion  int64
	expiresAt     time.Time
}

// bindToSession records the session of a socket being connected.
func (s *Server) bindToSession(sock *socket.Socket, caller *action.Caller) {
	sock.SetData(&sessionBinding{user: caller.ID, session: caller.SessionID, tokenVersion: caller.TokenVersion,
		expiresAt: caller.SessionExpiresAt})
}

// onConnection starts watching the session of a socket that just
// connected: once at once, which closes the race between the handshake's
// check and the socket becoming connected (a disconnect sent to its
// session's room before then found it not connected, and did nothing),
// then whenever the session's expiry comes.
func (s *Server) onConnection(args ...any) {
	if s.live == nil || len(args) == 0 {
		return
	}
	sock, ok := args[0].(*socket.Socket)
	if !ok {
		return
	}
	b, ok := sock.Data().(*sessionBinding)
	if !ok {
		return
	}
	w := &sessionWatch{srv: s, sock: sock, binding: *b}
	_ = sock.On("disconnect", func(...any) { w.stop() })
	go w.check()
}

// sessionWatch disconnects a socket when its session is no longer live.
type sessionWatch struct {
	srv     *Server
	sock    *socket.Socket
	binding sessionBinding

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// check reads the session: a live one is checked again at its expiry, an
// ended one disconnects the socket.
func (w *sessionWatch) check() {
	ctx, cancel := context.WithTimeout(w.srv.ctx, verifyTimeout)
	defer cancel()
	expiresAt, live, err := w.srv.live(ctx, w.binding.user, w.binding.session)
	switch {
	case err != nil:
		if w.srv.ctx.Err() == nil {
			w.srv.log.Warn("socket session check failed; retrying", "user", w.binding.user, "error", err)
		}
		w.arm(time.Now().Add(sessionRetry))
	case !live:
		w.srv.log.Debug("socket's session ended", "user", w.binding.user, "socket", w.sock.Id())
		w.sock.Disconnect(true)
	default:
		w.arm(expiresAt)
	}
}

// arm schedules the next check at at, unless the socket is gone.
func (w *sessionWatch) arm(at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.timer = time.AfterFunc(time.Until(at), w.check)
}

// stop ends the watch when the socket disconnects.
func (w *sessionWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
