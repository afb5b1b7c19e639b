package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"
)

// requestTimeout bounds one request; a run's end never cancels a request
// in flight (a refresh cut short would leave its chain in doubt).
const requestTimeout = 30 * time.Second

// newHTTPClient returns a client keeping up to conns keep-alive connections
// to the target, without a cookie jar (refresh tokens travel in bodies) and
// without compression.
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

// worker is one virtual user: it runs operations one after another over
// keep-alive connections.
type worker struct {
	id        int
	base      string
	client    *http.Client
	rng       *rand.Rand
	buf       bytes.Buffer
	rec       *recorder
	measuring bool // whether the operation under way counts
	user      *user
	state     any // the scenario's own, per virtual user
}

// newWorker returns virtual user id, sending to base through client.
func newWorker(id int, base string, client *http.Client) *worker {
	return &worker{id: id, base: base, client: client, rng: rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano()))), rec: newRecorder()}
}

// answer is one HTTP answer; body is valid until the worker's next call.
type answer struct {
	status int
	body   []byte
}

// call sends one request, measures it under kind and counts its failure, if
// any, by status and error code. A non-2xx answer is returned as an error.
func (w *worker) call(ctx context.Context, kind, method, path string, body any, headers ...string) (answer, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return answer{}, err
		}
	}
	start := time.Now()
	a, err := w.send(ctx, method, path, raw, headers)
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

// send makes one request and reads the whole answer into w.buf.
func (w *worker) send(ctx context.Context, method, path string, raw []byte, headers []string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, bytes.NewReader(raw))
	if err != nil {
		return answer{}, err
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := w.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	w.buf.Reset()
	if _, err := w.buf.ReadFrom(res.Body); err != nil {
		return answer{status: res.StatusCode}, err
	}
	return answer{status: res.StatusCode, body: w.buf.Bytes()}, nil
}

// failureKey names a failure as "status CODE (kind)", or "transport:
// reason (kind)" when no answer came.
func failureKey(kind string, a answer, err error) string {
	if a.status == 0 {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
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
