package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"
	sioredis "github.com/zishang520/socket.io/adapters/redis/v3"
	"github.com/zishang520/socket.io/adapters/redis/v3/emitter"
	"github.com/zishang520/socket.io/servers/socket/v3"
)

// DefaultKey is the channel prefix used when a key is empty, socket.io's
// own default.
const DefaultKey = "socket.io"

// DefaultEmitTimeout bounds an Emit or DisconnectUser whose context has no
// earlier deadline.
const DefaultEmitTimeout = 3 * time.Second

// RedisEmitter emits through Redis to every socket.io server whose Redis
// adapter uses the same key, for processes without a socket server (the
// worker). Without the adapter on the servers' side it reaches nobody.
type RedisEmitter struct {
	rc  *goredis.Client
	key string
	// Timeout bounds each call on top of its context; zero means
	// DefaultEmitTimeout. Set it before first use.
	Timeout time.Duration
}

// NewRedisEmitter returns an emitter publishing on rc under key (the
// servers' ServerConfig.Key; empty means DefaultKey). It panics when rc is
// nil, a programming error.
func NewRedisEmitter(rc *goredis.Client, key string) *RedisEmitter {
	if rc == nil {
		panic("events: NewRedisEmitter: nil Redis client")
	}
	if key == "" {
		key = DefaultKey
	}
	return &RedisEmitter{rc: rc, key: key}
}

// Emit publishes event with payload for the sockets in room on every
// server. The payload is encoded as JSON first, so that every server sends
// the same JSON whatever the Redis encoding (msgpack) would make of Go types.
func (e *RedisEmitter) Emit(ctx context.Context, room, event string, payload any) error {
	data, err := jsonValue(room, payload)
	if err != nil {
		return err
	}
	return e.publish(ctx, "emit "+event, func(em *emitter.Emitter) error {
		return em.To(socket.Room(room)).Emit(event, data)
	})
}

// DisconnectUser asks every server to disconnect the sockets of the user
// with id, closing their connections. Owner types other than UserOwner
// have no sockets: nothing is sent.
func (e *RedisEmitter) DisconnectUser(ctx context.Context, owner action.OwnerType, id uuid.UUID) error {
	if owner != UserOwner {
		return nil
	}
	return e.publish(ctx, "disconnect user", func(em *emitter.Emitter) error {
		return em.In(socket.Room(UserRoom(id)), socket.Room(ownerRoom(id))).DisconnectSockets(true)
	})
}

// DisconnectSessions asks every server to disconnect the sockets opened in
// the given sessions, closing their connections. Owner types other than
// UserOwner have no sockets: nothing is sent.
func (e *RedisEmitter) DisconnectSessions(ctx context.Context, owner action.OwnerType, sessions ...uuid.UUID) error {
	if owner != UserOwner || len(sessions) == 0 {
		return nil
	}
	return e.publish(ctx, "disconnect sessions", func(em *emitter.Emitter) error {
		return em.In(sessionRooms(sessions)...).DisconnectSockets(true)
	})
}

// sessionRooms names the rooms of sessions.
func sessionRooms(sessions []uuid.UUID) []socket.Room {
	rooms := make([]socket.Room, len(sessions))
	for i, sid := range sessions {
		rooms[i] = socket.Room(sessionRoom(sid))
	}
	return rooms
}

// publish runs f with an emitter bound to a context limited by the timeout.
// The emitter package takes its context from the client wrapper, so a fresh
// wrapper is made per call (two small structs). go-redis honours the context
// while dialling, waiting for a pooled connection and between retries, but
// by default not during a read: the call returns when the context ends, and
// the goroutine finishes when go-redis gives up (its ReadTimeout).
func (e *RedisEmitter) publish(ctx context.Context, what string, f func(*emitter.Emitter) error) error {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultEmitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	opts := emitter.DefaultEmitterOptions()
	opts.SetKey(e.key)
	// Every single-room emit on the room's own channel. In its default mode
	// the library's emitter publishes to a room whose name is as long as a
	// socket id (20 characters) on the namespace's bare channel, and its
	// Redis adapter drops whatever arrives there (it reads a room from the
	// channel name and takes an empty one for a malformed channel): such
	// rooms never got an event.
	opts.SetSubscriptionMode(sioredis.DynamicPrivateSubscriptionMode)
	em := emitter.NewEmitter(sioredis.NewRedisClient(ctx, e.rc), opts, "/")
	done := make(chan error, 1)
	go func() { done <- f(em) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("events: %s: %w", what, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("events: %s: %w", what, ctx.Err())
	}
}

// jsonValue checks room and turns payload into the value its JSON encoding
// decodes to (maps, slices, strings, float64s, bools, nil).
func jsonValue(room string, payload any) (any, error) {
	if room == "" {
		return nil, errors.New("events: empty room")
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("events: encode payload: %w", err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("events: decode payload: %w", err)
	}
	return v, nil
}
