package events

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"

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
func (s *Server) authenticate(sock *socket.Socket, next func(*socket.ExtendedError)) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("socket authentication panicked", "panic", r, "stack", string(debug.Stack()))
			next(connectError(codeInternal))
		}
	}()
	caller, err := s.caller(sock)
	down, unavailable := dependency.As(err)
	switch {
	case unavailable:
		s.log.Warn("socket authentication: a dependency is unavailable", "dependency", down.Name, "error", err)
		next(connectError(codeUnavailable))
		return
	case err != nil:
		s.log.Error("socket authentication failed", "error", err)
		next(connectError(codeInternal))
		return
	}
	if caller == nil {
		next(connectError(codeUnauthorized))
		return
	}
	sock.Join(socket.Room(UserRoom(caller.ID)), socket.Room(sessionRoom(caller.ID)))
	// Any-listeners run in order on the connection's reading goroutine, while
	// socket.io runs each On listener on a goroutine of its own: a "leave"
	// right after a "join" could then be applied first.
	sock.OnAny(s.onMessage(sock, caller.ID))
	s.log.Debug("socket connected", "user", caller.ID, "socket", sock.Id())
	next(nil)
}

// caller verifies the handshake's auth.token. A missing, malformed or
// invalid token, or a caller of another owner type, gives a nil caller.
func (s *Server) caller(sock *socket.Socket) (*action.Caller, error) {
	auth := sock.Handshake().Auth
	token, _ := auth["token"].(string)
	if token == "" || len(token) > maxTokenLength {
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
