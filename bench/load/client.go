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
	"strings"
	"time"
)

// The scenarios whose requests depend on earlier answers (a refresh chain,
// the post just created) are driven by this tool's own virtual users over
// Go's net/http client. The read and the baselines, where a lean client
// matters most, are driven by wrk (wrk.go), and the open loop by vegeta
// (open.go).

// requestTimeout bounds one request; a run's end never cancels a request
// in flight (a refresh cut short would leave its chain in doubt).
const requestTimeout = 30 * time.Second

// newHTTPClient returns a client keeping up to conns keep-alive
// connections to one server, without compression.
func newHTTPClient(conns int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
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
// (which keeps a keep-alive connection for each).
type worker struct {
	id        int
	base      string // http://host:port
	client    *http.Client
	rng       *rand.Rand
	rec       *recorder
	measuring bool // whether the operation under way counts
	user      *user
}

// newWorker returns virtual user id, sending to base through client.
func newWorker(id int, base string, client *http.Client) *worker {
	return &worker{id: id, base: base, client: client, rng: rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano()))), rec: newRecorder()}
}

// answer is one HTTP answer.
type answer struct {
	status int
	body   []byte
}

// call sends one request with a JSON body (unless body is nil) and
// headers (name, value pairs), measures it under kind and counts its
// failure, if any, by status and error code. A non-2xx answer is returned
// as an error.
func (w *worker) call(ctx context.Context, kind, method, path string, body any, headers ...string) (answer, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	start := time.Now()
	a, err := w.roundTrip(req)
	w.count(kind, time.Since(start), a, err)
	if err == nil && a.status/100 == 2 {
		return a, nil
	}
	return a, errors.New(failureKey(kind, a, err))
}

// roundTrip sends req and reads the whole answer.
func (w *worker) roundTrip(req *http.Request) (answer, error) {
	res, err := w.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, body: body}, err
}

// count records one request of kind, if the operation is measured.
func (w *worker) count(kind string, took time.Duration, a answer, err error) {
	if !w.measuring {
		return
	}
	w.rec.requests++
	w.rec.byKind[kind] = append(w.rec.byKind[kind], took)
	if err == nil && a.status/100 == 2 {
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
