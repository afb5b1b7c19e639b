package framework

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
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
	idHdr  [1]string // id as the X-Request-Id header's value
	ip     string
	start  time.Time
	action string
	route  string
	locale string
	logged map[string]bool // arguments whose values the access log shows
	// unavailable names the dependency whose outage the answer reports.
	unavailable string
}

type stateKey struct{}

// stateCtx is the request's context carrying its state: what
// context.WithValue would make, without an allocation of its own.
type stateCtx struct {
	context.Context
	st state
}

// Value returns the state for stateKey and asks the parent for any other
// key.
func (c *stateCtx) Value(key any) any {
	if _, ok := key.(stateKey); ok {
		return &c.st
	}
	return c.Context.Value(key)
}

// served is what ServeHTTP keeps for one request, in one allocation. Work
// that keeps the request's context past its answer keeps the recorder, and
// the writer it wraps, alive with it; nothing writes through them then.
type served struct {
	stateCtx
	rec recorder
}

// requestIDHeader is X-Request-ID as net/http keys it, so that reading and
// setting it need not build the canonical key per request.
const requestIDHeader = "X-Request-Id"

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
// connection's address or, with TrustProxy and a trusted peer, the
// right-most X-Forwarded-For hop that is not a trusted proxy (the
// left-most hop when every one is trusted).
func ClientIP(r *http.Request) string {
	if st := stateOf(r.Context()); st != nil {
		return st.ip
	}
	return remoteHost(r.RemoteAddr)
}

// ServeHTTP assigns the request id, answers CORS preflights, recovers
// panics into INTERNAL_SERVER_ERROR, then runs the middleware and router.
func (f *Framework) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sv := &served{stateCtx: stateCtx{Context: r.Context(), st: state{
		id:    f.requestID.next(r.Header.Get(requestIDHeader)),
		ip:    f.clientIP(r),
		start: f.cfg.Now(),
	}}}
	st, rec := &sv.st, &sv.rec
	rec.ResponseWriter = w
	st.idHdr[0] = st.id
	w.Header()[requestIDHeader] = st.idHdr[:1:1]
	r = r.WithContext(&sv.stateCtx)
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
	if f.cfg.AccessLog && f.log.Enabled(context.Background(), slog.LevelInfo) {
		f.log.Info("request", "requestId", st.id, "method", r.Method, "path", r.URL.Path,
			"query", redactQuery(r.URL.RawQuery, st.logged), "action", st.action, "status", status,
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
	var b [64]byte
	id := append(b[:0], s.prefix...)
	id = append(id, '-')
	return string(strconv.AppendUint(id, s.n.Add(1), 10))
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

// DefaultTrustedProxies are loopback and the private ranges.
var DefaultTrustedProxies = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
}

func (f *Framework) trustedProxy(a netip.Addr) bool {
	for _, p := range f.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// trustedPeer returns the connecting peer's address and whether its
// forwarding headers are believed.
func (f *Framework) trustedPeer(r *http.Request) (netip.Addr, bool) {
	peer, err := netip.ParseAddr(remoteHost(r.RemoteAddr))
	if err != nil {
		return netip.Addr{}, false
	}
	peer = peer.Unmap()
	return peer, f.cfg.TrustProxy && f.trustedProxy(peer)
}

// clientIP walks X-Forwarded-For from the right, skipping trusted proxies,
// when the peer is itself trusted. A hop that is not an address ends the
// walk at the trusted hop to its right, which sent it.
func (f *Framework) clientIP(r *http.Request) string {
	peer, trusted := f.trustedPeer(r)
	if !trusted {
		return remoteHost(r.RemoteAddr)
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		rest := hops[i]
		for rest != "" {
			hop := rest
			if c := strings.LastIndexByte(rest, ','); c >= 0 {
				hop, rest = rest[c+1:], rest[:c]
			} else {
				rest = ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a, ok := parseHop(hop)
			if !ok {
				return client.String()
			}
			client = a
			if !f.trustedProxy(a) {
				return a.String()
			}
		}
	}
	return client.String()
}

// parseHop reads an X-Forwarded-For hop: an address, possibly with a port.
func parseHop(hop string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(hop); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(hop); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// crossSite reports a request that an action declaring Spec.SameSite
// refuses: Sec-Fetch-Site "cross-site"; a GET or HEAD whose Sec-Fetch-Site
// is present and neither "same-origin" nor "none"; or an Origin that is
// none of the request's own origin (its scheme and Host; the scheme from
// X-Forwarded-Proto behind a trusted proxy), a SameSiteOrigins entry or a
// CORSOrigins entry.
//
// A top-level navigation (a link, a redirect, a GET form) sends no Origin,
// and browsers send the cookies of a SameSite=Lax or Strict cookie's site
// along with one from a sibling subdomain (Sec-Fetch-Site "same-site"):
// without the GET rule such a page could log a browser into another
// account. The browser's own pages call these actions with POST.
func (f *Framework) crossSite(r *http.Request) bool {
	site := strings.ToLower(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site")))
	if site == "cross-site" {
		return true
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && site != "" && site != "same-origin" && site != "none" {
		return true
	}
	values, present := r.Header["Origin"]
	if !present {
		return false
	}
	if len(values) != 1 {
		return true
	}
	origin := strings.ToLower(strings.TrimSpace(values[0]))
	if f.sameSite[origin] || f.cors[values[0]] {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if _, trusted := f.trustedPeer(r); trusted {
		if p := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto"))); p == "http" || p == "https" {
			scheme = p
		}
	}
	return origin != scheme+"://"+strings.ToLower(r.Host)
}

func remoteHost(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// redactQuery replaces every value in a query string but those of the
// arguments in logged (the action's declared arguments not marked secret),
// so that a log never holds a password or token, wherever in the URL it
// arrives and whatever it is called. Both & and ; count as separators.
func redactQuery(raw string, logged map[string]bool) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	for raw != "" {
		part, rest, sep := raw, "", ""
		if i := strings.IndexAny(raw, "&;"); i >= 0 {
			part, rest, sep = raw[:i], raw[i+1:], raw[i:i+1]
		}
		key, _, hasVal := strings.Cut(part, "=")
		name, err := url.QueryUnescape(key)
		if hasVal && (err != nil || !logged[name]) {
			part = key + "=[REDACTED]"
		}
		b.WriteString(part)
		b.WriteString(sep)
		raw = rest
	}
	return b.String()
}
