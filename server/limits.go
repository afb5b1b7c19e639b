package main

import (
	"net/http"
	"strings"
	"time"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/ratelimit"
)

// rateLimits applies the global per-IP limit and the stricter per-IP-and-
// path limit of the credential-taking actions, counted in Redis so every
// instance shares one budget.
type rateLimits struct {
	fw         *framework.Framework
	limiter    *ratelimit.Limiter
	max        int
	window     time.Duration
	authMax    int
	authWindow time.Duration
	authPaths  map[string]bool
}

// exemptPaths are never limited: orchestrators poll them.
var exemptPaths = map[string]bool{"/health": true, "/ready": true, "/metrics": true}

func (l *rateLimits) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if exemptPaths[path] || isSocketFollowUp(r) {
			next.ServeHTTP(w, r)
			return
		}
		ip := framework.ClientIP(r)
		if l.max > 0 {
			if d := l.limiter.Allow(r.Context(), "ip:"+ip, l.max, l.window); !d.Allowed {
				l.refuse(w, r, d)
				return
			}
		}
		if l.authMax > 0 && l.authPaths[path] {
			if d := l.limiter.Allow(r.Context(), "auth:"+ip+":"+path, l.authMax, l.authWindow); !d.Allowed {
				l.refuse(w, r, d)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (l *rateLimits) refuse(w http.ResponseWriter, r *http.Request, d ratelimit.Decision) {
	e := errorcodes.TooManyRequests.New()
	e.RetryAfter = max(d.RetryAfter, time.Second)
	l.fw.WriteError(w, r, e)
}

// isSocketFollowUp reports a socket.io request of an established session
// (polling or upgrade, carrying a sid): only new connections are counted.
func isSocketFollowUp(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/socket.io/") && r.URL.Query().Get("sid") != ""
}
