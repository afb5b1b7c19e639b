package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/events"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/ratelimit"
)

// After the listener closes, a connection idle this long is closed: its
// client had that long to send the request it was writing. A connection
// accepted without a request yet gets connNewGrace to send one.
const (
	connIdleGrace = 100 * time.Millisecond
	connNewGrace  = 2 * time.Second
)

// api is the HTTP role: actions, probes, metrics and socket.io on PORT.
type api struct {
	a         *app
	fw        *framework.Framework
	limiter   *ratelimit.Limiter
	global    *ratelimit.Shared
	sockets   *events.Server
	server    *http.Server
	conns     *connTracker
	listening func(net.Addr)
}

func (a *app) newAPI(listening func(net.Addr)) (*api, error) {
	cfg := a.cfg
	limiter := ratelimit.New(ratelimit.Config{
		Pool:   a.redis,
		Prefix: cfg.JobsNamespace + ":ratelimit:",
		Logger: a.log,
	})
	global := ratelimit.NewShared(ratelimit.SharedConfig{
		Pool:         a.redis,
		Prefix:       cfg.JobsNamespace + ":ratelimit:g:",
		Logger:       a.log,
		SyncInterval: cfg.RateLimitSync,
	})
	limits := &rateLimits{
		global: global, auth: limiter, max: cfg.RateLimitMax, window: cfg.RateLimitWindow,
		authMax: cfg.AuthRateLimitMax, authWindow: cfg.AuthRateLimitWindow,
		ipv6Prefix: cfg.RateLimitIPv6Prefix,
	}
	pr := &probes{draining: &a.draining, checks: map[string]func(context.Context) error{
		"database": a.db.PingContext,
		"redis":    func(ctx context.Context) error { return pingRedis(ctx, a.redis) },
	}}
	fw := framework.New(framework.Config{
		Logger:           a.log,
		Authenticator:    a.authenticator(),
		Catalog:          a.catalog,
		Rules:            validationRules(a),
		Mods:             v1.Mods(a.catalog),
		CORSOrigins:      cfg.CORSOrigins,
		SameSiteOrigins:  []string{cfg.publicOrigin()},
		TrustProxy:       cfg.TrustProxy,
		TrustedProxies:   cfg.TrustedProxies,
		Middleware:       []func(http.Handler) http.Handler{a.metrics.track, pr.guard, limits.middleware},
		Observe:          a.metrics.observe,
		AccessLog:        true,
		Stacks:           !cfg.production(),
		Now:              a.now,
		Reauthentication: a.reauthentication(),
		OAuth:            a.oauthResource(),
	})
	limits.fw, pr.fw = fw, fw
	pr.register()
	mountOpenAPI(fw, a)
	a.mountJWKS(fw)
	limits.static = a.mountWebClient(fw)
	if cfg.MetricsAddr == "" {
		fw.Handle(http.MethodGet, "/metrics", a.metricsHandler())
	}
	a.registerActions(fw, limits)
	limits.learnClasses(fw)
	var sockets *events.Server
	if cfg.Sockets {
		s, err := a.mountSockets(fw)
		if err != nil {
			limiter.Close()
			global.Close()
			return nil, fmt.Errorf("sockets: %w", err)
		}
		sockets = s
	}
	conns := newConnTracker()
	srv := &http.Server{
		ConnState:         conns.hook,
		Handler:           closeWhileDraining(&a.draining, withHSTS(cfg.httpsPublic(), a.oauth.cors(a.oauth.anyOriginCORS(fw)))),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	return &api{a: a, fw: fw, limiter: limiter, global: global, sockets: sockets, server: srv, conns: conns, listening: listening}, nil
}

// run serves until ctx ends, then drains: the probes answer 503 at once
// while actions are still served for SHUTDOWN_DRAIN, every answer with
// Connection: close so that clients move off their kept-alive connections;
// then sockets are closed, the listener closes, connections left idle are
// closed, and in-flight requests finish within the shutdown budget.
func (s *api) run(ctx, stopCtx context.Context) error {
	defer s.limiter.Close()
	defer s.global.Close()
	// Plain TCP, not Go's default Multipath TCP: the closing listener
	// refuses new handshakes with a socket filter, which MPTCP sockets do
	// not take (clients here are plain TCP either way).
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(ctx, "tcp", fmt.Sprintf(":%d", s.a.cfg.Port))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.a.log.Info("api listening", "addr", ln.Addr().String(), "env", s.a.cfg.Env)
	if s.listening != nil {
		s.listening(ln.Addr())
	}
	notify := newDrainingListener(ln.(*net.TCPListener), func() { s.a.log.Info("listener closed") })
	served := make(chan error, 1)
	go func() { served <- s.server.Serve(notify) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.a.log.Info("draining", "drain", s.a.cfg.ShutdownDrain.String())
	select {
	case <-time.After(s.a.cfg.ShutdownDrain):
	case <-stopCtx.Done():
	}
	if s.sockets != nil {
		// Sockets end first: their long-polling requests would otherwise
		// hold Shutdown, and their clients reconnect to another instance.
		s.sockets.Close()
	}
	_ = notify.Close()
	<-served // Serve returns once the listener is closed
	// Every answer now says Connection: close; connections idle for
	// connIdleGrace (none during a drain under load) are closed, those
	// opened without a request yet get connNewGrace to send one.
	err = s.conns.settle(stopCtx, connIdleGrace, connNewGrace)
	if err == nil {
		err = s.server.Shutdown(stopCtx)
	}
	if err != nil {
		_ = s.server.Close()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return errForcedShutdown
		}
		return err
	}
	return nil
}
