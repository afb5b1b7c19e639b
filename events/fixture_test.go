package events

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/events/redislog"
	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"
)

// go-redis logs through log/slog in these tests as in the server: real
// trouble (the refused dials of TestEmitRedisDown) shows, deliberate closes
// do not.
func init() { redislog.Install() }

// waitLimit bounds every wait for something that should happen.
const waitLimit = 10 * time.Second

// quiet is the window in which an event that should not arrive would have
// (a local delivery takes a few milliseconds).
const quiet = 500 * time.Millisecond

// fixture is one test's world: real token verification over an in-memory
// user table, and a Redis client with a channel key of the test's own.
type fixture struct {
	t      *testing.T
	tokens *auth.Tokens
	verify func(context.Context, string) (*action.Caller, error)
	rc     *goredis.Client
	key    string

	mu       sync.Mutex
	versions map[uuid.UUID]int64     // user id -> token version
	sessions map[uuid.UUID]time.Time // session id -> expiry; absent: ended
	owners   map[uuid.UUID]uuid.UUID // session id -> user id
	sweeps   int                     // calls of liveSessions
	swept    int                     // the most sessions one call asked for
	failing  bool                    // live and liveSessions fail
	servers  []*Server               // started by server, in order
	// checks schedules, per session, the lifetime each of its next
	// checks by live finds: the session's expiry becomes that long after
	// the check, as if it had been refreshed just then.
	checks  map[uuid.UUID][]time.Duration
	checked map[uuid.UUID]int // session id -> calls of live
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	url, prefix, _ := redistest.New(t)
	opts, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := goredis.NewClient(opts)
	t.Cleanup(func() { _ = rc.Close() })
	tokens, err := auth.NewTokens([]byte("a socket test secret of at least 32 bytes"), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, tokens: tokens, rc: rc, key: prefix + "socket.io",
		versions: map[uuid.UUID]int64{}, sessions: map[uuid.UUID]time.Time{}, owners: map[uuid.UUID]uuid.UUID{},
		checks: map[uuid.UUID][]time.Duration{}, checked: map[uuid.UUID]int{}}
	authn := auth.NewAuthenticator(tokens, auth.Owner{Type: "user", Load: f.load})
	f.verify = func(ctx context.Context, tok string) (*action.Caller, error) {
		return authn.Verify(ctx, "user", tok)
	}
	return f
}

func (f *fixture) load(_ context.Context, id, session uuid.UUID, _ action.Needs) (auth.Principal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.versions[id]
	if !ok {
		return auth.Principal{}, auth.ErrUnknownOwner
	}
	exp, live := f.sessions[session]
	if !live || !time.Now().Before(exp) {
		return auth.Principal{}, auth.ErrSessionEnded
	}
	return auth.Principal{TokenVersion: v, Locale: "en", SessionExpiresAt: exp}, nil
}

// live is the servers' SessionLive over the fixture's sessions; failing
// makes it fail, as the sweep's read does, since both read the same
// database.
func (f *fixture) live(ctx context.Context, user, session uuid.UUID) (time.Time, bool, error) {
	f.mu.Lock()
	failing := f.failing
	f.checked[session]++
	if next := f.checks[session]; len(next) > 0 {
		if _, live := f.sessions[session]; live {
			f.sessions[session] = time.Now().Add(next[0])
		}
		f.checks[session] = next[1:]
	}
	f.mu.Unlock()
	if failing {
		return time.Time{}, false, errSweepFailed
	}
	p, err := f.load(ctx, user, session, action.Needs{})
	return p.SessionExpiresAt, err == nil, nil
}

// liveSessions is the servers' LiveSessions over the fixture's sessions;
// calls counts its calls, and failing makes it fail.
func (f *fixture) liveSessions(_ context.Context, ids []uuid.UUID) (map[uuid.UUID]LiveSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sweeps++
	f.swept = max(f.swept, len(ids))
	if f.failing {
		return nil, errSweepFailed
	}
	live := map[uuid.UUID]LiveSession{}
	for _, sid := range ids {
		if exp, ok := f.sessions[sid]; ok && time.Now().Before(exp) {
			u := f.owners[sid]
			live[sid] = LiveSession{User: u, TokenVersion: f.versions[u]}
		}
	}
	return live, nil
}

// errSweepFailed is the error of a failing live or liveSessions.
var errSweepFailed = errors.New("the database is down")

// peek is the servers' Peek.
func (f *fixture) peek(token string) (uuid.UUID, uuid.UUID, bool) {
	c, err := f.tokens.Parse("user", token)
	return c.Subject, c.SessionID, err == nil
}

// user creates a user with one session and returns its id and a valid
// access token.
func (f *fixture) user() (uuid.UUID, string) {
	f.t.Helper()
	id := uuid.Must(uuid.NewV7())
	f.mu.Lock()
	f.versions[id] = 1
	f.mu.Unlock()
	return id, f.login(id, time.Hour)
}

// login opens a session of user id that expires in ttl and returns an
// access token of it.
func (f *fixture) login(id uuid.UUID, ttl time.Duration) string {
	f.t.Helper()
	sid := uuid.Must(uuid.NewV7())
	f.mu.Lock()
	f.sessions[sid] = time.Now().Add(ttl)
	f.owners[sid] = id
	f.mu.Unlock()
	return f.tokenIn("user", id, sid, 1)
}

// schedule sets the lifetimes the next checks of session sid by live find
// (see fixture.checks).
func (f *fixture) schedule(sid uuid.UUID, lifetimes ...time.Duration) {
	f.mu.Lock()
	f.checks[sid] = lifetimes
	f.mu.Unlock()
}

// checksOf returns how many times live checked session sid.
func (f *fixture) checksOf(sid uuid.UUID) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checked[sid]
}

// extend moves the expiry of a live session, as a refresh would.
func (f *fixture) extend(sid uuid.UUID, ttl time.Duration) {
	f.mu.Lock()
	f.sessions[sid] = time.Now().Add(ttl)
	f.mu.Unlock()
}

// expiryOf returns the expiry of a live session.
func (f *fixture) expiryOf(sid uuid.UUID) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[sid]
}

// endSession ends a session as a logout would.
func (f *fixture) endSession(sid uuid.UUID) {
	f.mu.Lock()
	delete(f.sessions, sid)
	f.mu.Unlock()
}

// sessionOf reads the session of a token.
func (f *fixture) sessionOf(token string) uuid.UUID {
	f.t.Helper()
	_, sid, ok := f.peek(token)
	if !ok {
		f.t.Fatalf("token %q does not parse", token)
	}
	return sid
}

func (f *fixture) token(owner action.OwnerType, id uuid.UUID, version int64) string {
	f.t.Helper()
	sid := uuid.Must(uuid.NewV7())
	f.mu.Lock()
	f.sessions[sid] = time.Now().Add(time.Hour)
	f.owners[sid] = id
	f.mu.Unlock()
	return f.tokenIn(owner, id, sid, version)
}

func (f *fixture) tokenIn(owner action.OwnerType, id, sid uuid.UUID, version int64) string {
	f.t.Helper()
	tok, _, err := f.tokens.Issue(owner, id, sid, version, action.App)
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

// server starts a socket server with the Redis adapter (or without it when
// cfg.Redis is set to nil by mod) on an httptest server, and returns both.
func (f *fixture) server(mod func(*ServerConfig)) (*Server, *httptest.Server) {
	f.t.Helper()
	cfg := ServerConfig{Redis: f.rc, Key: f.key, Verify: f.verify, Peek: f.peek, SessionLive: f.live,
		LiveSessions: f.liveSessions}
	if mod != nil {
		mod(&cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		f.t.Fatalf("NewServer: %v", err)
	}
	f.servers = append(f.servers, s)
	ts := httptest.NewServer(s.Handler())
	f.t.Cleanup(ts.Close) // after s.Close, which ends the long-polling requests
	f.t.Cleanup(s.Close)
	return s, ts
}

// connect starts a client and waits until it is connected.
func (f *fixture) connect(url, token string, opts sockettest.Options) *sockettest.Client {
	f.t.Helper()
	c := sockettest.Start(f.t, url, token, opts)
	if m, err := c.WaitFor(wait(f.t), "connect", nil); err != nil {
		f.t.Fatalf("connect: %v", err)
	} else if want := strings.Join(opts.Transports, ""); want != "" && m.Transport != want {
		f.t.Fatalf("transport: got %q, want %q", m.Transport, want)
	}
	return c
}

// wait returns a context bounded by waitLimit.
func wait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// ackOf waits for the acknowledgement of the next join or leave of room.
func ackOf(t *testing.T, c *sockettest.Client, cmd, room string) (ok bool, code string) {
	t.Helper()
	m, err := c.WaitFor(wait(t), "ack", func(m sockettest.Message) bool { return m.Cmd == cmd && m.Room == room })
	if err != nil {
		t.Fatalf("%s %q: %v", cmd, room, err)
	}
	return decodeAck(t, m)
}

func decodeAck(t *testing.T, m sockettest.Message) (ok bool, code string) {
	t.Helper()
	var a struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(m.Ack, &a); err != nil {
		t.Fatalf("ack %s: %v", m.Line, err)
	}
	return a.OK, a.Error
}

// waitEvent waits for event and returns its payload.
func waitEvent(t *testing.T, c *sockettest.Client, event string) json.RawMessage {
	t.Helper()
	m, err := c.WaitFor(wait(t), "event", func(m sockettest.Message) bool { return m.Event == event })
	if err != nil {
		t.Fatalf("event %s: %v", event, err)
	}
	return m.Payload
}

var transports = []struct {
	name string
	list []string
}{
	{"websocket", []string{"websocket"}},
	{"polling", []string{"polling"}},
}
