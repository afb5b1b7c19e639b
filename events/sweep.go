package events

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/zishang520/socket.io/servers/socket/v3"
)

// DefaultSessionSweep is how often a Server re-checks the sessions of its
// sockets when ServerConfig.SessionSweep is zero.
const DefaultSessionSweep = time.Minute

// sweepTimeout bounds one sweep's query.
const sweepTimeout = 10 * time.Second

// LiveSession is what ServerConfig.LiveSessions reads of a live session.
type LiveSession struct {
	// User is the session's owner.
	User uuid.UUID
	// TokenVersion is the owner's token version.
	TokenVersion int64
}

// boundSocket is a connected socket and the session it is bound to.
type boundSocket struct {
	sock    *socket.Socket
	binding *sessionBinding
}

// sweepLoop runs sweep every period until the server closes.
func (s *Server) sweepLoop(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.sweep()
		}
	}
}

// sweep reads the sessions of every socket of this instance in one
// LiveSessions call and disconnects the sockets whose session has ended
// (the disconnect message of that end may have been lost), whose session
// belongs to another user, or whose owner's token version changed. When
// the call fails every socket stays until the next sweep.
func (s *Server) sweep() {
	bound, ids := s.boundSockets()
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, sweepTimeout)
	defer cancel()
	live, err := s.liveSessions(ctx, ids)
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("socket session sweep failed; sockets kept until the next one", "sessions", len(ids), "error", err)
		}
		return
	}
	ended := 0
	for _, b := range bound {
		l, ok := live[b.binding.session]
		if ok && l.User == b.binding.user && l.TokenVersion == b.binding.tokenVersion {
			continue
		}
		ended++
		b.sock.Disconnect(true)
	}
	if ended > 0 {
		s.log.Info("socket session sweep disconnected sockets of ended sessions", "sockets", ended, "sessions", len(ids))
	}
}

// boundSockets lists this instance's connected sockets that are bound to a
// session, and the distinct sessions among them.
func (s *Server) boundSockets() ([]boundSocket, []uuid.UUID) {
	var bound []boundSocket
	seen := map[uuid.UUID]bool{}
	var ids []uuid.UUID
	s.io.Sockets().Sockets().Range(func(_ socket.SocketId, so *socket.Socket) bool {
		b, ok := so.Data().(*sessionBinding)
		if !ok {
			return true
		}
		bound = append(bound, boundSocket{sock: so, binding: b})
		if !seen[b.session] {
			seen[b.session] = true
			ids = append(ids, b.session)
		}
		return true
	})
	return bound, ids
}
