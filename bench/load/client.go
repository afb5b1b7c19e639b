package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// The scenarios whose requests depend on earlier answers (a refresh chain,
// the post just created) are driven by this tool's own virtual users over
// fasthttp's client, which sends a request from the calling goroutine with
// buffers it reuses: on the two cores the tool shares with the server,
// net/http's client, which hands every request between goroutines and
// allocates per request, took about three times the CPU per request and
// left the server less. vegeta's open loop goes through the same client
// (fastTransport). The read and the baselines are driven by wrk (wrk.go).

// requestTimeout bounds one request; a run's end never cancels a request
// in flight (a refresh cut short would leave its chain in doubt).
const requestTimeout = 30 * time.Second

// newClient returns a client keeping up to conns keep-alive connections
// to base, an http URL (checked by the callers; a malformed one makes
// every request fail with a transport error). It never sends a request
// again after a failure, even a GET: a failure is counted, not hidden.
func newClient(base string, conns int) *fasthttp.HostClient {
	addr := "invalid base URL " + base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		addr = u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	return &fasthttp.HostClient{Addr: addr, MaxConns: max(conns, 1), ReadTimeout: requestTimeout, WriteTimeout: requestTimeout,
		MaxIdleConnDuration: 90 * time.Second, MaxIdemponentCallAttempts: 1, NoDefaultUserAgentHeader: true}
}

// recorder collects what one worker measured during a run.
type recorder struct {
	ops      []time.Duration
	failed   int64 // operations that returned an error
	requests int64
	fivexx   int64
	byKind   map[string][]time.Duration
	errors   map[string]int64
}

// newRecorder returns an empty recorder.
func newRecorder() *recorder {
	return &recorder{byKind: map[string][]time.Duration{}, errors: map[string]int64{}}
}

// merge adds what o collected.
func (r *recorder) merge(o *recorder) {
	r.ops = append(r.ops, o.ops...)
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

// worker is one virtual user: it runs operations one after another, one
// request at a time, through a client shared with the run's other workers
// (which keeps a keep-alive connection for each), from a request and an
// answer it reuses.
type worker struct {
	id        int
	base      string // http://host:port
	client    *fasthttp.HostClient
	req       *fasthttp.Request
	res       *fasthttp.Response
	rng       *rand.Rand
	rec       *recorder
	measuring bool // whether the operation under way counts
	user      *user
}

// newWorker returns virtual user id, sending to base through client.
func newWorker(id int, base string, client *fasthttp.HostClient) *worker {
	return &worker{id: id, base: base, client: client, req: &fasthttp.Request{}, res: &fasthttp.Response{},
		rng: rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano()))), rec: newRecorder()}
}

// answer is one HTTP answer; body is valid until the worker's next call.
type answer struct {
	status int
	body   []byte
}

// call sends one request with a JSON body (unless body is nil) and
// headers (name, value pairs), measures it under kind and counts its
// failure, if any, by status and error code. A non-2xx answer is returned
// as an error. The request is never sent again after a failure: the
// server may have acted on it.
func (w *worker) call(ctx context.Context, kind, method, path string, body any, headers ...string) (answer, error) {
	return w.callWant(ctx, kind, 0, method, path, body, headers...)
}

// callWant is call for a request whose expected answer has status want
// (0: any 2xx), such as the 403 of a login's first step when a second
// factor is owed; any other answer is a failure.
func (w *worker) callWant(_ context.Context, kind string, want int, method, path string, body any, headers ...string) (answer, error) {
	w.req.Reset()
	w.req.SetRequestURI(w.base + path)
	w.req.Header.SetMethod(method)
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		w.req.Header.SetContentType("application/json")
		w.req.SetBodyRaw(raw)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		w.req.Header.Set(headers[i], headers[i+1])
	}
	start := time.Now()
	err := w.client.Do(w.req, w.res)
	var a answer
	if err == nil {
		a = answer{status: w.res.StatusCode(), body: w.res.Body()}
	}
	ok := err == nil && (a.status == want || want == 0 && a.status/100 == 2)
	w.count(kind, time.Since(start), a, err, ok)
	if ok {
		return a, nil
	}
	return a, errors.New(failureKey(kind, a, err))
}

// count records one request of kind, if the operation is measured.
func (w *worker) count(kind string, took time.Duration, a answer, err error, ok bool) {
	if !w.measuring {
		return
	}
	w.rec.requests++
	w.rec.byKind[kind] = append(w.rec.byKind[kind], took)
	if ok {
		return
	}
	w.rec.errors[failureKey(kind, a, err)]++
	if a.status >= 500 {
		w.rec.fivexx++
	}
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

// transportKey names a transport failure that came as text (vegeta's):
// its last part, without the addresses before it.
func transportKey(kind, text string) string {
	if i := strings.LastIndex(text, ": "); i >= 0 {
		text = text[i+2:]
	}
	return fmt.Sprintf("transport: %s (%s)", text, kind)
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

// fastTransport is an http.RoundTripper over a fasthttp client: vegeta's
// attacker takes an http.Client and sends its requests through this one,
// so that the open loop costs the cores what this tool's virtual users do.
type fastTransport struct{ client *fasthttp.HostClient }

// RoundTrip sends r and returns its whole answer.
func (f fastTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI(r.URL.String())
	req.Header.SetMethod(r.Method)
	for name, values := range r.Header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		req.SetBodyRaw(body)
	}
	if err := f.client.Do(req, res); err != nil {
		return nil, err
	}
	body := bytes.Clone(res.Body())
	return &http.Response{StatusCode: res.StatusCode(), Status: strconv.Itoa(res.StatusCode()) + " " + http.StatusText(res.StatusCode()),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}
