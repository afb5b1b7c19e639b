package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/ratelimit"
)

// rateLimits applies the global per-client limit, decided in process and
// shared with the other instances through Redis in the background, and the
// stricter per-client budget of each credential class (Spec.RateClass),
// counted in Redis on every call since those actions are rare.
type rateLimits struct {
	fw         *framework.Framework
	global     *ratelimit.Shared
	auth       *ratelimit.Limiter
	max        int
	window     time.Duration
	authMax    int
	authWindow time.Duration
	ipv6Prefix int
	// classes maps the path of each action declaring a RateClass to it;
	// it is filled from the registered specs before serving.
	classes map[string]action.RateClass
	// static holds the paths of the embedded pages, scripts and styles,
	// which the global limit does not count: one page load fetches a
	// few dozen of them, and they are answered from memory.
	static map[string]bool
}

// passwordAttemptsFactor bounds every attempt of the password class of a
// client (successes included) at this many times AUTH_RATE_LIMIT_MAX in
// the window, while the class's budget counts failures only.
const passwordAttemptsFactor = 10

// learnClasses records the rate class of every action registered on fw.
func (l *rateLimits) learnClasses(fw *framework.Framework) {
	l.classes = map[string]action.RateClass{}
	for _, d := range fw.Actions() {
		if d.Spec.RateClass != "" {
			l.classes[d.Spec.Path] = d.Spec.RateClass
		}
	}
}

// exemptPaths are never limited: orchestrators poll the probes and the
// metrics, and other services fetch the signing keys.
var exemptPaths = map[string]bool{"/health": true, "/ready": true, "/metrics": true, jwksPath: true}

func (l *rateLimits) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if exemptPaths[path] || l.static[path] || isSocketFollowUp(r) {
			next.ServeHTTP(w, r)
			return
		}
		client := ratelimit.ClientKey(framework.ClientIP(r), l.ipv6Prefix)
		// A tool call runs in process within its MCP request, which
		// spent the global budget already; its action's class counts.
		if l.max > 0 && !framework.IsToolCall(r) {
			if d := l.global.Allow("ip:"+client, l.max, l.window); !d.Allowed {
				l.refuse(w, r, d)
				return
			}
		}
		switch class := l.classes[path]; {
		case class == action.RatePassword && l.authMax > 0:
			l.passwordAttempt(w, r, next, client) // spent by its outcome
			return
		case class != "":
			if d, ok := l.spend(r.Context(), class, client); !ok {
				l.refuse(w, r, d)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// clientBudget returns the function that spends one unit of a client's
// budget of class from inside an action (for the actions that charge the
// client only in some cases: the refresh of a token that names no
// session), and reports how long the client must wait when it was spent.
func (l *rateLimits) clientBudget(class action.RateClass) func(context.Context, *action.Request) time.Duration {
	return func(ctx context.Context, req *action.Request) time.Duration {
		if d, ok := l.spend(ctx, class, ratelimit.ClientKey(req.IP, l.ipv6Prefix)); !ok {
			return refusalWait(d)
		}
		return 0
	}
}

// spend counts one request of client in the credential class, and
// reports whether it is within the class's budget (always, with
// AUTH_RATE_LIMIT_MAX=0).
func (l *rateLimits) spend(ctx context.Context, class action.RateClass, client string) (ratelimit.Decision, bool) {
	if l.authMax <= 0 {
		return ratelimit.Decision{}, true
	}
	d := l.auth.Allow(ctx, "auth:"+string(class)+":"+client, l.authMax, l.authWindow)
	return d, d.Allowed
}

// refusalWait is how long a refused client is told to wait: at least a
// second, the unit of Retry-After.
func refusalWait(d ratelimit.Decision) time.Duration { return max(d.RetryAfter, time.Second) }

func (l *rateLimits) refuse(w http.ResponseWriter, r *http.Request, d ratelimit.Decision) {
	e := errorcodes.TooManyRequests.New()
	e.RetryAfter = refusalWait(d)
	l.fw.WriteError(w, r, e)
}

// isSocketFollowUp reports a socket.io request of an established session
// (polling or upgrade, carrying a sid): only new connections are counted.
func isSocketFollowUp(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/socket.io/") && r.URL.Query().Get("sid") != ""
}
