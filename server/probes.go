package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
)

// readyTimeout bounds each dependency check of /ready, so that the probe
// turns 503 well within two seconds of a dependency stopping.
const readyTimeout = 800 * time.Millisecond

// probes serves /health and /ready, and answers both with 503 as soon as
// the process starts draining.
type probes struct {
	fw       *framework.Framework
	draining *atomic.Bool
	checks   map[string]func(context.Context) error
}

func (p *probes) register() {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		p.fw.Handle(m, "/health", http.HandlerFunc(p.health))
		p.fw.Handle(m, "/ready", http.HandlerFunc(p.ready))
	}
}

// guard answers the probes with 503 SERVICE_UNAVAILABLE during shutdown,
// before they reach their handlers.
func (p *probes) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.draining.Load() && (r.URL.Path == "/health" || r.URL.Path == "/ready") {
			p.fw.WriteError(w, r, errorcodes.ServiceUnavailable.New())
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (p *probes) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]any{"status": http.StatusOK, "success": true})
}

func (p *probes) ready(w http.ResponseWriter, r *http.Request) {
	results := make(map[string]string, len(p.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range p.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			state := "ok"
			if err := check(ctx); err != nil {
				state = "down"
			}
			mu.Lock()
			results[name] = state
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, state := range results {
		if state != "ok" {
			writeJSON(w, r, http.StatusServiceUnavailable, map[string]any{
				"status": http.StatusServiceUnavailable, "success": false,
				"reason": "dependency_unavailable", "checks": results,
			})
			return
		}
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"status": http.StatusOK, "success": true})
}

func writeJSON(w http.ResponseWriter, r *http.Request, status int, body any) {
	raw, _ := json.Marshal(body)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(raw)
	}
}
