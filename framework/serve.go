package framework

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/actionkit/actionkit/errorcodes"
)

// state is the request-scoped record the framework keeps in the context.
type state struct {
	id     string
	ip     string
	start  time.Time
	action string
	route  string
	locale string
	// unavailable names the dependency whose outage the answer reports.
	unavailable string
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	st, _ := ctx.Value(stateKey{}).(*state)
	return st
}

// RequestID returns the id of the request being served, or "".
func RequestID(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.id
	}
	return ""
}

// ClientIP returns the client address the framework resolved for r: the
// connection's address or, with TrustProxy, the last X-Forwarded-For hop.
func ClientIP(r *http.Request) string {
	if st := stateOf(r.Context()); st != nil {
		return st.ip
	}
	return remoteHost(r.RemoteAddr)
}

// ServeHTTP assigns the request id, answers CORS preflights, recovers
// panics into INTERNAL_SERVER_ERROR, then runs the middleware and router.
func (f *Framework) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := &state{
		id:    f.requestID.next(r.Header.Get("X-Request-ID")),
		ip:    clientIP(r, f.cfg.TrustProxy),
		start: f.cfg.Now(),
	}
	w.Header().Set("X-Request-ID", st.id)
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	defer f.finish(rec, r, st)
	if f.handleCORS(rec, r) {
		return
	}
	f.handler.ServeHTTP(rec, r)
}

func (f *Framework) finish(rec *recorder, r *http.Request, st *state) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		attrs := []any{"requestId", st.id, "action", st.action, "panic", p}
		if f.cfg.Stacks {
			attrs = append(attrs, "stack", string(debug.Stack()))
		}
		f.log.Error("panic while serving request", attrs...)
		if !rec.wrote {
			f.writeError(rec, r, errorcodes.InternalServerError.New(), nil)
		}
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	d := f.cfg.Now().Sub(st.start)
	if f.cfg.Observe != nil {
		f.cfg.Observe(Observation{Action: st.action, Route: st.route, Method: r.Method, Status: status, Duration: d, Unavailable: st.unavailable})
	}
	if f.cfg.AccessLog {
		f.log.Info("request", "requestId", st.id, "method", r.Method, "path", r.URL.Path,
			"query", redactQuery(r.URL.RawQuery), "action", st.action, "status", status,
			"durationMs", float64(d.Microseconds())/1000, "ip", st.ip)
	}
}

// recorder remembers the status written through it, and keeps the
// optional interfaces of the writer it wraps (websocket upgrades hijack).
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *recorder) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Flush() {
	if fl, ok := w.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (w *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("framework: the response writer cannot be hijacked")
	}
	w.wrote, w.status = true, http.StatusSwitchingProtocols
	return hj.Hijack()
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// idSource issues request ids: a random per-process prefix and a counter.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic("framework: no randomness: " + err.Error())
	}
	return &idSource{prefix: hex.EncodeToString(b)}
}

// next keeps a well-formed incoming id (1-128 of A-Z a-z 0-9 . _ : -) and
// issues a new one otherwise.
func (s *idSource) next(incoming string) string {
	if validRequestID(incoming) {
		return incoming
	}
	return s.prefix + "-" + strconv.FormatUint(s.n.Add(1), 10)
}

func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

func clientIP(r *http.Request, trustProxy bool) string {
	if trustProxy {
		if hops := r.Header.Values("X-Forwarded-For"); len(hops) > 0 {
			last := hops[len(hops)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			if addr, err := netip.ParseAddr(strings.TrimSpace(last)); err == nil {
				return addr.Unmap().String()
			}
		}
	}
	return remoteHost(r.RemoteAddr)
}

func remoteHost(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

var sensitiveParams = []string{"password", "refreshtoken", "refresh_token", "token", "accesstoken", "access_token", "secret", "authorization"}

// redactQuery replaces the values of credential-bearing parameters so that
// logs never hold a password or token, even when one arrives in the URL.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		key, _, hasVal := strings.Cut(p, "=")
		name := strings.ToLower(key)
		if un, err := url.QueryUnescape(key); err == nil {
			name = strings.ToLower(un)
		}
		for _, s := range sensitiveParams {
			if name == s && hasVal {
				parts[i] = key + "=[REDACTED]"
				break
			}
		}
	}
	return strings.Join(parts, "&")
}
