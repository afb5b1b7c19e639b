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

// readyMaxAge is how long one round of dependency checks answers /ready:
// a storm of probes (many load balancers, or a probe flood) costs at most
// one round of checks per readyMaxAge, and an answer is never older than
// it plus readyTimeout.
const readyMaxAge = 500 * time.Millisecond

// probes serves /health and /ready, and answers both with 503 as soon as
// the process starts draining.
type probes struct {
	fw       *framework.Framework
	draining *atomic.Bool
	checks   map[string]func(context.Context) error
	now      func() time.Time // nil means time.Now

	mu       sync.Mutex
	results  map[string]string // the latest round, read-only once stored
	checked  time.Time         // when that round started
	checking chan struct{}     // closed when the round under way ends
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
	results := p.readiness(r.Context())
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

// readiness returns the state of each dependency from a round of checks
// started at most readyMaxAge ago, running one round at a time: requests
// arriving while one runs wait for its result instead of starting another.
func (p *probes) readiness(ctx context.Context) map[string]string {
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	p.mu.Lock()
	if p.results != nil && now().Sub(p.checked) < readyMaxAge {
		defer p.mu.Unlock()
		return p.results
	}
	if wait := p.checking; wait != nil {
		p.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.results == nil { // the caller left before any round ended
			down := make(map[string]string, len(p.checks))
			for name := range p.checks {
				down[name] = "down"
			}
			return down
		}
		return p.results
	}
	done := make(chan struct{})
	p.checking = done
	p.mu.Unlock()
	started := now()
	// The round serves every waiting request, so it does not stop when the
	// request that started it goes away.
	results := p.check(context.WithoutCancel(ctx))
	p.mu.Lock()
	p.results, p.checked, p.checking = results, started, nil
	p.mu.Unlock()
	close(done)
	return results
}

// check runs every dependency check at once, each bounded by readyTimeout.
func (p *probes) check(ctx context.Context) map[string]string {
	results := make(map[string]string, len(p.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range p.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, readyTimeout)
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
	return results
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
