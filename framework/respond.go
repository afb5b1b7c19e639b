package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/errorcodes"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// The values of the headers every JSON answer carries, shared by all of
// them. Each slice has a capacity of one, so Header.Add appends to a copy;
// nothing writes into one in place (net/http clones the header map before
// it writes it).
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noStore         = []string{"no-store"}
	noSniff         = []string{"nosniff"}
)

// setJSONHeaders sets the content type of a JSON answer and forbids
// caching it and sniffing its type.
func setJSONHeaders(h http.Header) {
	h["Content-Type"] = jsonContentType[:1:1]
	h["Cache-Control"] = noStore[:1:1]
	h["X-Content-Type-Options"] = noSniff[:1:1]
}

// writeSuccess writes the flat success body: status and success, then the
// members of the result object out (nil: none), which the encoding/json
// encoder writes, or out's own AppendJSON when appends is set.
func (f *Framework) writeSuccess(w http.ResponseWriter, r *http.Request, status int, out any, appends bool, cookies []*http.Cookie) error {
	bp := bodyPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledBody {
			bodyPool.Put(bp)
		}
	}()
	b := append((*bp)[:0], `{"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"success":true`...)
	if out != nil {
		var err error
		if b, err = appendMembers(b, out, appends); err != nil {
			return err
		}
	}
	b = append(b, '}')
	*bp = b
	h := w.Header()
	setJSONHeaders(h)
	for _, c := range cookies {
		http.SetCookie(w, c)
	}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
	return nil
}

// bodyPool holds the buffers success bodies are built in; one grown past
// maxPooledBody (a long list) is left to the collector.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledBody = 64 << 10

// appendMembers appends ",", then the members of the JSON object of out,
// or nothing when it has none. The object is written by out's AppendJSON
// when appends is set, else by encoding/json (HTML characters escaped).
func appendMembers(b []byte, out any, appends bool) ([]byte, error) {
	mark := len(b)
	if appends {
		var err error
		if b, err = out.(action.JSONAppender).AppendJSON(b); err != nil {
			return nil, err
		}
	} else {
		pb := bufPool.Get().(*bytes.Buffer)
		defer func() { pb.Reset(); bufPool.Put(pb) }()
		if err := json.NewEncoder(pb).Encode(out); err != nil {
			return nil, err
		}
		b = append(b, bytes.TrimSuffix(pb.Bytes(), []byte("\n"))...)
	}
	if len(b)-mark < 2 || b[mark] != '{' || b[len(b)-1] != '}' {
		return nil, errors.New("framework: a result's JSON is not an object")
	}
	if len(b)-mark == 2 { // {}
		return b[:mark], nil
	}
	b[mark] = ','
	return b[:len(b)-1], nil
}

// writeRedirect answers a redirect to loc with no body. The target is not
// to be cached, and the page it lands on is not told where the browser
// came from.
func (f *Framework) writeRedirect(w http.ResponseWriter, r *http.Request, status int, loc string, cookies []*http.Cookie) {
	if loc == "" {
		f.writeError(w, r, errors.New("framework: a redirect result without a location"), nil)
		return
	}
	h := w.Header()
	h.Set("Location", loc)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", "0")
	for _, c := range cookies {
		http.SetCookie(w, c)
	}
	w.WriteHeader(status)
}

type errorBody struct {
	Status    int               `json:"status"`
	Success   bool              `json:"success"`
	Error     string            `json:"error"`
	Message   string            `json:"message"`
	Fields    map[string]string `json:"fields,omitempty"`
	RequestID string            `json:"requestId"`
}

// WriteError answers r with err as a JSON error body. An *errorcodes.Error
// is written with its code; a failure to reach a dependency (marked by
// dependency.Unavailable) is logged and answered with SERVICE_UNAVAILABLE
// and Retry-After; anything else is logged and answered with
// INTERNAL_SERVER_ERROR. Neither says anything of the cause, and neither
// sets the cookies the action asked for: nothing was decided.
func (f *Framework) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	f.writeError(w, r, err, nil)
}

func (f *Framework) writeError(w http.ResponseWriter, r *http.Request, err error, cookies []*http.Cookie) {
	st := stateOf(r.Context())
	e, ok := errorcodes.As(err)
	if dep, isDep := dependency.As(err); !ok && isDep {
		e, cookies = f.unavailable(st, dep, err), nil
		ok = true
	}
	if !ok && clientGone(r, err) {
		// Nobody reads this answer, and nothing failed on our side: the
		// client closed its connection while the request ran.
		attrs := []any{"error", err}
		if st != nil {
			attrs = append(attrs, "requestId", st.id, "action", st.action)
		}
		f.log.Info("request canceled by its client", attrs...)
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	if !ok || e.Code.Status() >= 500 && e.Code.ID() == errorcodes.InternalServerError.ID() {
		attrs := []any{"error", err}
		if st != nil {
			attrs = append(attrs, "requestId", st.id, "action", st.action)
		}
		f.log.Error("internal error", attrs...)
		e, cookies = errorcodes.InternalServerError.New(), nil
	}
	locale := f.errorLocale(r, st)
	body := errorBody{Status: e.Code.Status(), Error: e.Code.ID()}
	body.Fields, body.Message = f.catalog.FieldMessages(locale, e)
	if st != nil {
		body.RequestID = st.id
	}
	raw, merr := json.Marshal(body)
	if merr == nil && e.Details != nil {
		raw, merr = withDetails(raw, e.Details)
	}
	if merr != nil {
		f.log.Error("error body", "error", merr, "code", e.Code.ID())
		e, cookies = errorcodes.InternalServerError.New(), nil
		raw = []byte(`{"status":500,"success":false,"error":"INTERNAL_SERVER_ERROR"}`)
	}
	h := w.Header()
	setJSONHeaders(h)
	if ch, isChallenge := errors.AsType[*challengeError](err); isChallenge && ch.err == e {
		h.Set("WWW-Authenticate", ch.challenge)
	}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	for _, c := range cookies {
		http.SetCookie(w, c)
	}
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(e.Code.Status())
	if r.Method != http.MethodHead {
		_, _ = w.Write(raw)
	}
}

// withDetails adds the members of details, a struct encoded as a JSON
// object, to the error body raw.
func withDetails(raw []byte, details any) ([]byte, error) {
	extra, err := json.Marshal(details)
	if err != nil {
		return nil, err
	}
	if len(extra) < 2 || extra[0] != '{' {
		return nil, errors.New("framework: error details are not a JSON object")
	}
	if len(extra) == 2 {
		return raw, nil
	}
	out := append(raw[:len(raw)-1:len(raw)-1], ',')
	return append(out, extra[1:]...), nil
}

// StatusClientClosedRequest is the status recorded (in the access log and
// the Observation) for a request whose client went away before its answer:
// nginx's 499. It is not a server error.
const StatusClientClosedRequest = 499

// clientGone reports whether err is the cancellation of r's own context,
// which net/http cancels when the client closes the connection.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil && errors.Is(err, context.Canceled)
}

// unavailable logs a dependency outage met by a request, records it for
// the request's Observation, and returns the 503 answer.
func (f *Framework) unavailable(st *state, dep *dependency.Error, err error) *errorcodes.Error {
	attrs := []any{"dependency", dep.Name, "error", err}
	if st != nil {
		st.unavailable = dep.Name
		attrs = append(attrs, "requestId", st.id, "action", st.action)
	}
	f.log.Warn("dependency unavailable", attrs...)
	e := errorcodes.ServiceUnavailable.New()
	e.RetryAfter = f.cfg.UnavailableRetryAfter
	return e
}

// errorLocale is the locale of an error answer: the one already resolved
// for the request, else the lang query parameter, else Accept-Language.
func (f *Framework) errorLocale(r *http.Request, st *state) string {
	if st != nil && st.locale != "" {
		return st.locale
	}
	return f.resolveLocale(nil, r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
}

// resolveLocale picks the locale of messages in this order: the caller's
// locale, a lang argument, Accept-Language, then the default.
func (f *Framework) resolveLocale(caller *action.Caller, lang any, acceptLanguage string) string {
	if caller != nil {
		if loc, ok := f.catalog.Match(caller.Locale); ok {
			return loc
		}
	}
	if s, ok := lang.(string); ok && s != "" {
		if loc, ok := f.catalog.Match(s); ok {
			return loc
		}
	}
	if acceptLanguage != "" {
		if loc := f.catalog.Negotiate(acceptLanguage); loc != "" {
			return loc
		}
	}
	return errorcodes.DefaultLocale
}
