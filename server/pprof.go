package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// servePprof serves Go's profiler on PPROF_ADDR, a listener of its own that
// is never the API port: profiles reveal internals, so the address should
// be a loopback one. It stops when ctx ends.
func (a *app) servePprof(ctx context.Context) error {
	if a.cfg.PprofAddr == "" {
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return a.serveSide(ctx, "pprof", a.cfg.PprofAddr, mux)
}

// serveMetrics serves /metrics on METRICS_ADDR, when it is set, for every
// role of the process (a worker's job metrics too); the API port then
// answers /metrics 404. It stops when ctx ends.
func (a *app) serveMetrics(ctx context.Context) error {
	if a.cfg.MetricsAddr == "" {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metricsHandler())
	return a.serveSide(ctx, "metrics", a.cfg.MetricsAddr, mux)
}

func (a *app) metricsHandler() http.Handler {
	return promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{})
}

// serveSide serves h on a listener of its own at addr until ctx ends.
func (a *app) serveSide(ctx context.Context, name, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	a.log.Info(name+" listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Warn(name+" stopped", "error", err)
		}
	}()
	return nil
}
