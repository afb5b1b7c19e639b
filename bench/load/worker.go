package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"
)

// requestTimeout bounds one request; a run's end never cancels a request
// in flight (a refresh cut short would leave its chain in doubt).
const requestTimeout = 30 * time.Second

// newHTTPClient returns a net/http client for what is not measured (the
// server's /metrics), without compression.
func newHTTPClient(conns int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: 2 * conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: requestTimeout}
}

// recorder collects what one worker measured during a run.
type recorder struct {
	ops      []time.Duration
	failed   int64 // operations that returned an error
	requests int64
	fivexx   int64
	byKind   map[string][]time.Duration
	errors   map[string]int64
	// lag is, in an open-loop run, how late each operation started after
	// its scheduled time.
	lag []time.Duration
}

// newRecorder returns an empty recorder.
func newRecorder() *recorder {
	return &recorder{byKind: map[string][]time.Duration{}, errors: map[string]int64{}}
}

// merge adds what o collected.
func (r *recorder) merge(o *recorder) {
	r.ops = append(r.ops, o.ops...)
	r.lag = append(r.lag, o.lag...)
	r.failed += o.failed
	r.requests += o.requests
	r.fivexx += o.fivexx
	for k, v := range o.byKind {
		r.byKind[k] = append(r.byKind[k], v...)
	}
	for k, v := range o.errors {
		r.errors[k] += v
	}
}

// worker is one virtual user: it runs operations one after another over
// its own keep-alive connection.
type worker struct {
	id        int
	conn      *httpConn
	rng       *rand.Rand
	req       []byte // the request being built, reused
	rec       *recorder
	measuring bool // whether the operation under way counts
	user      *user
	state     any // the scenario's own, per virtual user
}

// newWorker returns virtual user id, sending to base (an http URL, checked
// by the callers) over a connection of its own; close it after use.
func newWorker(id int, base string) *worker {
	conn, err := newHTTPConn(base)
	if err != nil {
		conn = &httpConn{addr: "invalid base URL " + base} // every call fails with a transport error
	}
	return &worker{id: id, conn: conn, rng: rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano()))), rec: newRecorder()}
}

// close closes the worker's connection.
func (w *worker) close() { w.conn.close() }

// answer is one HTTP answer; body is valid until the worker's next call.
type answer struct {
	status int
	body   []byte
}

// call sends one request with a JSON body (unless body is nil) and
// headers (name, value pairs), measures it under kind and counts its
// failure, if any, by status and error code. A non-2xx answer is returned
// as an error.
func (w *worker) call(_ context.Context, kind, method, path string, body any, headers ...string) (answer, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return answer{}, err
		}
	}
	w.req = appendRequest(w.req[:0], method, w.conn.host, path, raw, headers...)
	return w.send(kind, w.req)
}

// send sends req, a whole request, and measures it as call does.
func (w *worker) send(kind string, req []byte) (answer, error) {
	start := time.Now()
	status, body, err := w.conn.roundTrip(req)
	a := answer{status: status, body: body}
	if w.measuring {
		w.rec.requests++
		w.rec.byKind[kind] = append(w.rec.byKind[kind], time.Since(start))
	}
	if err == nil && a.status/100 == 2 {
		return a, nil
	}
	key := failureKey(kind, a, err)
	if w.measuring {
		w.rec.errors[key]++
		if a.status >= 500 {
			w.rec.fivexx++
		}
	}
	return a, errors.New(key)
}

// failureKey names a failure as "status CODE (kind)", or "transport:
// reason (kind)" when no answer came.
func failureKey(kind string, a answer, err error) string {
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			// Without the addresses, which differ per connection.
			err = fmt.Errorf("%s: %w", op.Op, op.Err)
		}
		return fmt.Sprintf("transport: %v (%s)", err, kind)
	}
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(a.body, &e)
	if e.Error == "" {
		e.Error = "-"
	}
	return fmt.Sprintf("%d %s (%s)", a.status, e.Error, kind)
}

// decode reads the JSON answer a into v, counting a malformed answer as a
// failure of kind.
func (w *worker) decode(kind string, a answer, v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		key := fmt.Sprintf("%d malformed answer (%s)", a.status, kind)
		if w.measuring {
			w.rec.errors[key]++
		}
		return errors.New(key)
	}
	return nil
}
