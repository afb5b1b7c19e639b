package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"
	sioredis "github.com/zishang520/socket.io/adapters/redis/v3"
	"github.com/zishang520/socket.io/adapters/redis/v3/adapter"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	"github.com/zishang520/socket.io/servers/engine/v3"
	"github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// Path is where the Handler serves socket.io, for polling and websocket.
const Path = "/socket.io/"

// MaxMessageBytes bounds one websocket message and one polling request body
// (engine.io's maxHttpBufferSize); a bigger one closes the connection.
const MaxMessageBytes = 16 << 10

const (
	// verifyTimeout bounds the verification of a handshake token.
	verifyTimeout = 5 * time.Second
	// redisRetryPause paces the adapter's subscription loops while Redis is
	// unreachable (see onRedisError).
	redisRetryPause = 500 * time.Millisecond
	// redisErrorLogEvery limits the log of adapter errors to one per period.
	redisErrorLogEvery = 10 * time.Second
)

// ServerConfig configures a Server.
type ServerConfig struct {
	// Redis, when not nil, connects this server to the others through the
	// socket.io Redis adapter, so that Emit and DisconnectUser reach every
	// instance and a RedisEmitter reaches this one. Nil means a single
	// process. The server subscribes on a client of its own with the same
	// options, closed by Close.
	Redis *goredis.Client
	// Key prefixes the adapter's Redis channels; emitters must use the same
	// (for example "<JOBS_NAMESPACE>#socket.io"). Empty means DefaultKey. It
	// may not contain the glob characters * ? [ ] \ (it is subscribed to as a
	// pattern).
	Key string
	// Verify resolves a user access token to its caller, whose session must
	// be live; a nil caller means the token is not valid, an error that it
	// could not be checked. Required.
	Verify func(ctx context.Context, token string) (*action.Caller, error)
	// Peek reads the user and session of a user access token whose
	// signature and claims are valid, without any database look-up, so that
	// a socket joins its rooms before Verify checks the session: an end of
	// the session between the two then still disconnects it. Required.
	Peek func(token string) (user, session uuid.UUID, ok bool)
	// SessionLive reports whether a user's session is live and until when.
	// A socket re-checks it when its session's expiry comes (a refresh
	// moves the expiry on), and is disconnected once it is not. Nil: sockets
	// are not bound to their session's expiry.
	SessionLive func(ctx context.Context, user, session uuid.UUID) (expiresAt time.Time, live bool, err error)
	// LiveSessions reads, in one query, which of the given sessions are
	// live, with their owner and the owner's token version; a session not
	// in the answer is not live (ended, expired, or its owner deactivated or
	// deleted). Every SessionSweep the server asks it about the sessions of
	// all its sockets and disconnects those whose session is not live, is
	// another user's, or whose owner's token version changed since the
	// handshake, so that a socket whose disconnect message was lost does
	// not outlive its session by more than that. An error keeps every
	// socket until the next sweep. Nil: no sweep.
	LiveSessions func(ctx context.Context, sessions []uuid.UUID) (map[uuid.UUID]LiveSession, error)
	// SessionSweep is the period of the LiveSessions check; zero means
	// DefaultSessionSweep, a negative value no sweep.
	SessionSweep time.Duration
	// AllowTestRooms lets sockets join rooms starting with RoomTest. False in
	// production.
	AllowTestRooms bool
	// CORSOrigins are the browser origins allowed to connect (with
	// credentials). Empty allows no cross-origin browser; non-browser
	// clients are unaffected.
	CORSOrigins []string
	// Logger receives connection failures and adapter errors; nil discards.
	Logger *slog.Logger
}

// Server is the socket.io server: it authenticates sockets, places them in
// rooms and emits events to them. It implements Emitter.
type Server struct {
	io        *socket.Server
	handler   http.Handler
	emitter   *RedisEmitter   // nil without Redis
	sub       *goredis.Client // the adapter's own client, nil without Redis
	verify    func(context.Context, string) (*action.Caller, error)
	peek      func(string) (uuid.UUID, uuid.UUID, bool)
	live      func(context.Context, uuid.UUID, uuid.UUID) (time.Time, bool, error)
	allowTest bool
	log       *slog.Logger

	// liveSessions is ServerConfig.LiveSessions, nil without a sweep.
	liveSessions func(context.Context, []uuid.UUID) (map[uuid.UUID]LiveSession, error)

	ctx          context.Context // ends at Close
	cancel       context.CancelFunc
	sweeps       sync.WaitGroup // the sweep loop, waited for at Close
	closeOnce    sync.Once
	lastRedisLog atomic.Int64 // unix nanoseconds of the last logged adapter error
	redisErrors  atomic.Int64 // adapter errors seen, for tests
}

// NewServer returns a Server for cfg. It fails when Verify is missing or the
// key is unusable.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Verify == nil || cfg.Peek == nil {
		return nil, errors.New("events: server: nil Verify or Peek")
	}
	key := cfg.Key
	if key == "" {
		key = DefaultKey
	}
	if strings.ContainsAny(key, `*?[]\`) {
		return nil, fmt.Errorf("events: server: key %q contains a glob character", key)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{verify: cfg.Verify, peek: cfg.Peek, live: cfg.SessionLive, allowTest: cfg.AllowTestRooms, ctx: ctx, cancel: cancel}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}

	opts := socket.DefaultServerOptions()
	opts.SetServeClient(false)
	opts.SetMaxHttpBufferSize(MaxMessageBytes)
	opts.SetTransports(types.NewSet(engine.Polling, engine.WebSocket))
	if len(cfg.CORSOrigins) > 0 {
		origins := make([]any, len(cfg.CORSOrigins)) // engine.io matches []any only
		for i, o := range cfg.CORSOrigins {
			origins[i] = o
		}
		opts.SetCors(&types.Cors{Origin: origins, Credentials: true})
	}
	if cfg.Redis != nil {
		o := *cfg.Redis.Options()
		// The copy must not share the push-notification processor the first
		// client stored in its options: go-redis would register its handlers
		// twice, refuse, and log it.
		o.PushNotificationProcessor = nil
		s.sub = goredis.NewClient(&o)
		rc := sioredis.NewRedisClient(ctx, s.sub)
		_ = rc.On("error", s.onRedisError) // before the adapter starts its loops
		// The adapter warns on stdout when its own error listener is alone as
		// it runs, which happens when Close removed it while a loop was
		// calling the listeners: a second, idle listener keeps it quiet.
		_ = rc.On("error", func(...any) {})
		aopts := adapter.DefaultRedisAdapterOptions()
		aopts.SetKey(key)
		opts.SetAdapter(&adapter.RedisAdapterBuilder{Redis: rc, Opts: aopts})
		s.emitter = NewRedisEmitter(cfg.Redis, key)
	}
	s.io = socket.NewServer(nil, opts) // subscribes: blocks while Redis hangs
	s.io.Use(s.authenticate)
	_ = s.io.On("connection", s.onConnection)
	s.handler = guard(s.io.ServeHandler(nil))
	if cfg.LiveSessions != nil && cfg.SessionSweep >= 0 {
		s.liveSessions = cfg.LiveSessions
		s.sweeps.Go(func() { s.sweepLoop(cmp.Or(cfg.SessionSweep, DefaultSessionSweep)) })
	}
	return s, nil
}

// Handler serves socket.io at Path (polling and websocket upgrade); other
// paths are not found. Mount it on Path beside the API's router.
func (s *Server) Handler() http.Handler { return s.handler }

// Emit sends event with payload (encoded as JSON) to the sockets in room: on
// every instance through Redis when the server has the adapter, else on this
// one. The Redis path is the RedisEmitter's, so that a failure is returned
// (the adapter's own broadcast only reports errors to a listener) and is
// bounded by DefaultEmitTimeout.
func (s *Server) Emit(ctx context.Context, room, event string, payload any) error {
	if s.emitter != nil {
		return s.emitter.Emit(ctx, room, event, payload)
	}
	data, err := jsonValue(room, payload)
	if err != nil {
		return err
	}
	if err := s.io.To(socket.Room(room)).Emit(event, data); err != nil {
		return fmt.Errorf("events: emit %s: %w", event, err)
	}
	return nil
}

// DisconnectUser disconnects every socket of the user with id, on every
// instance when the server has the adapter, closing their connections. It
// reaches sockets that left their USER room too. Owner types other than
// UserOwner have no sockets: nothing is done.
func (s *Server) DisconnectUser(ctx context.Context, owner action.OwnerType, id uuid.UUID) error {
	if s.emitter != nil {
		return s.emitter.DisconnectUser(ctx, owner, id)
	}
	if owner == UserOwner {
		s.io.In(socket.Room(UserRoom(id)), socket.Room(ownerRoom(id))).DisconnectSockets(true)
	}
	return nil
}

// DisconnectSessions disconnects the sockets opened in the given sessions,
// on every instance when the server has the adapter. Owner types other
// than UserOwner have no sockets: nothing is done.
func (s *Server) DisconnectSessions(ctx context.Context, owner action.OwnerType, sessions ...uuid.UUID) error {
	if s.emitter != nil {
		return s.emitter.DisconnectSessions(ctx, owner, sessions...)
	}
	if owner == UserOwner && len(sessions) > 0 {
		s.io.In(sessionRooms(sessions)...).DisconnectSockets(true)
	}
	return nil
}

// Connected returns the number of sockets connected to this instance.
func (s *Server) Connected() int { return s.io.Sockets().Sockets().Len() }

// Close disconnects this instance's sockets and leaves the adapter. It may
// be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		// Cancelling first makes the adapter's unsubscribe calls fail at once
		// instead of waiting on a hung Redis; closing its client ends the
		// subscription loops, blocked reading until their connections close.
		s.cancel()
		s.sweeps.Wait() // a sweep under way stops at the cancel: none outlives Close
		if s.sub != nil {
			_ = s.sub.Close()
		}
		s.closePolls()
		s.io.Close(nil) // disconnects this instance's sockets
	})
}

// closePolls sends the engine.io close packet to every polling socket that
// holds a long-poll, so that the poll is answered and its client sees an
// orderly "transport close" and reconnects (to another instance once this
// one has left the load balancer). When the server closes, engine.io
// discards each socket's transport (a forced close), which answers a
// pending long-poll with a NOOP packet and never a CLOSE: the client would
// poll again, meet a closed server and report a transport error. A packet
// queued before that close is still written, since closing the transport's
// write queue lets the tasks already in it run.
func (s *Server) closePolls() {
	s.io.Sockets().Sockets().Range(func(_ socket.SocketId, so *socket.Socket) bool {
		if t := so.Conn().Transport(); t != nil && t.Name() == "polling" && t.Writable() {
			t.Send([]*packet.Packet{{Type: packet.CLOSE}})
		}
		return true
	})
}

// onRedisError receives the adapter's Redis errors. Its subscription loops
// retry at once after a failed read, a busy loop while Redis is down; they
// call this listener on their own goroutine, so pausing here paces them.
func (s *Server) onRedisError(args ...any) {
	if s.ctx.Err() != nil {
		return
	}
	s.redisErrors.Add(1)
	now := time.Now()
	if last := s.lastRedisLog.Load(); now.UnixNano()-last >= int64(redisErrorLogEvery) &&
		s.lastRedisLog.CompareAndSwap(last, now.UnixNano()) {
		var err any
		if len(args) > 0 {
			err = args[0]
		}
		s.log.Warn("socket.io redis adapter error", "error", err)
	}
	select {
	case <-s.ctx.Done():
	case <-time.After(redisRetryPause):
	}
}
