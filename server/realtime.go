package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/events/redislog"
	"github.com/actionkit/actionkit/framework"
)

// go-redis logs through the process's JSON log (see run), not plain text
// on stderr: a deliberate close at debug level, real trouble as a warning.
// Installed at init, before any client can log.
func init() { redislog.Install() }

// emitTimeout bounds one emit through Redis, so that a Redis outage delays a
// publish answer by at most this much (the publish itself still stands).
const emitTimeout = time.Second

// socketKey is the Redis channel prefix shared by the socket.io adapter of
// every API process and the emitter of every process of this deployment.
func (a *app) socketKey() string { return a.cfg.JobsNamespace + "#socket.io" }

// newEmitter returns the process's emitter: every process emits through
// Redis, which the socket.io adapter of every API instance listens to, so
// an event reaches sockets wherever they are connected.
func newEmitter(rc *goredis.Client, key string) *events.RedisEmitter {
	e := events.NewRedisEmitter(rc, key)
	e.Timeout = emitTimeout
	return e
}

// mountSockets serves socket.io on the API's port. Sockets authenticate
// with a user access token, checked like an HTTP request (token version
// included).
func (a *app) mountSockets(fw *framework.Framework) (*events.Server, error) {
	authn := a.authenticator()
	users, _ := a.services()
	srv, err := events.NewServer(events.ServerConfig{
		Redis: a.rc,
		Key:   a.socketKey(),
		Verify: func(ctx context.Context, token string) (*action.Caller, error) {
			return authn.Verify(ctx, "user", token)
		},
		Peek: func(token string) (uuid.UUID, uuid.UUID, bool) {
			claims, err := a.tokens.Parse("user", token)
			return claims.Subject, claims.SessionID, err == nil
		},
		SessionLive: func(ctx context.Context, user, session uuid.UUID) (time.Time, bool, error) {
			p, err := users.Load(ctx, user, session, action.Needs{})
			if errors.Is(err, auth.ErrUnknownOwner) || errors.Is(err, auth.ErrSessionEnded) {
				return time.Time{}, false, nil
			}
			return p.SessionExpiresAt, err == nil, err
		},
		LiveSessions: func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]events.LiveSession, error) {
			rows, err := a.userRooms.activity.StillLive(ctx, ids)
			if err != nil {
				return nil, err
			}
			live := make(map[uuid.UUID]events.LiveSession, len(rows))
			for _, r := range rows {
				live[r.SessionID] = events.LiveSession{User: r.OwnerID, TokenVersion: r.TokenVersion}
			}
			return live, nil
		},
		SessionSweep:   a.socketSweep,
		AllowTestRooms: !a.cfg.production(),
		Logger:         a.log,
	})
	if err != nil {
		return nil, err
	}
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		fw.Handle(m, "/socket.io/*any", srv.Handler())
	}
	a.metrics.watchSockets(srv.Connected)
	return srv, nil
}

// ended disconnects, on every instance, the sockets opened in sessions of
// an owner that ended: the given ones, or every one when sessions is nil.
func (a *app) ended(owner action.OwnerType, id uuid.UUID, sessions []uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.Background(), emitTimeout)
	defer cancel()
	var err error
	if sessions == nil {
		err = a.emitter.DisconnectUser(ctx, owner, id)
	} else {
		err = a.emitter.DisconnectSessions(ctx, owner, sessions...)
	}
	if err != nil {
		a.log.Warn("could not disconnect the sockets of ended sessions", "ownerType", string(owner),
			"ownerId", id.String(), "sessions", len(sessions), "error", err)
	}
}
