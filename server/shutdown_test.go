package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/sockettest"
)

// drainOutcome is what one read of the drain load saw.
type drainOutcome struct {
	reused     bool      // sent on a kept-alive connection
	gotConn    bool      // a connection was established or reused
	started    time.Time // when the request was issued
	err        error
	status     int
	closeAfter bool // the answer said Connection: close
}

// TestShutdownUnderLoadResetsNothing runs keep-alive read load through the
// drain and the listener's close, several rounds. Every read sent on a kept
// alive connection or on a new one whose handshake completed must be
// answered: no reset, no EOF. Only reads that could not connect because
// the listener had closed fail. Reads issued once the probes answer 503
// must be answered with Connection: close.
func TestShutdownUnderLoadResetsNothing(t *testing.T) {
	const rounds, workers = 3, 24
	var total, refused, broken int
	for round := range rounds {
		n, r, b := drainUnderLoad(t, round, workers)
		total, refused, broken = total+n, refused+r, broken+b
	}
	t.Logf("%d rounds: %d reads, %d refused after the listener closed, %d broken",
		rounds, total, refused, broken)
	if broken > 0 {
		t.Errorf("%d of %d reads that got a connection failed during shutdown", broken, total)
	}
}

// drainUnderLoad runs one round and returns the reads sent, those refused
// at connect and those broken after they got a connection.
func drainUnderLoad(t *testing.T, round, workers int) (total, refused, broken int) {
	t.Helper()
	s := startServer(t, testEnv(t, "SHUTDOWN_DRAIN=700ms", "LOG_LEVEL=info"), "api")
	u := register(t, s.client(), "web")

	ctx, stop := context.WithTimeout(context.Background(), 15*time.Second)
	defer stop()
	var ok atomic.Int64
	var probed atomic.Int64 // UnixNano of the first 503 from /health
	results := make([][]drainOutcome, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One client per worker, like independent callers; each keeps
			// its connection alive between reads.
			tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			for ctx.Err() == nil {
				o := readOnce(ctx, hc, s.URL, u.token)
				results[w] = append(results[w], o)
				if o.err == nil {
					ok.Add(1)
				}
				if o.err != nil && !o.gotConn {
					return // the listener is closed: this caller is done
				}
			}
		}()
	}
	poll.Until(t, 10*time.Second, "load warmed up", func() bool { return ok.Load() >= 200 })
	s.cancel()
	probe := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	poll.Until(t, 5*time.Second, "probes answering 503", func() bool {
		res, err := probe.Get(s.URL + "/health")
		if err != nil {
			return false
		}
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable {
			probed.Store(time.Now().UnixNano())
			return true
		}
		return false
	})
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("round %d: the load did not end with the listener's close", round)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("round %d: exit code %d:\n%s", round, code, s.logs.String())
	}

	logs := s.logs.String()
	if !strings.Contains(logs, `"msg":"listener closed"`) {
		t.Errorf("round %d: no listener close logged", round)
	}

	drained := time.Unix(0, probed.Load())
	var duringDrain, keptAlive int
	kinds := map[string]int{}
	for _, rs := range results {
		for _, o := range rs {
			total++
			switch {
			case o.err != nil && !o.gotConn:
				refused++
			case o.err != nil:
				broken++
				kinds[fmt.Sprintf("reused=%v %v", o.reused, errKind(o.err))]++
			case o.status != http.StatusOK:
				t.Errorf("round %d: a read answered %d", round, o.status)
			case o.started.After(drained):
				duringDrain++
				if !o.closeAfter {
					keptAlive++
				}
			}
		}
	}
	t.Logf("round %d: %d reads, %d served after the probes said 503, %d refused after the listener closed, %d broken %v",
		round, total, duringDrain, refused, broken, kinds)
	if duringDrain == 0 {
		t.Errorf("round %d: no read was served during the drain", round)
	}
	if keptAlive > 0 {
		t.Errorf("round %d: %d reads served during the drain lacked Connection: close", round, keptAlive)
	}
	if refused == 0 {
		t.Errorf("round %d: no caller saw the listener close", round)
	}
	return total, refused, broken
}

// readOnce sends one read that no layer retries: a POST whose body cannot
// be replayed.
func readOnce(ctx context.Context, hc *http.Client, base, token string) drainOutcome {
	o := drainOutcome{started: time.Now()}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		o.gotConn, o.reused = true, info.Reused
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace),
		http.MethodPost, base+"/v1/users/read", strings.NewReader("{}"))
	if err != nil {
		o.err = err
		return o
	}
	req.GetBody = nil // never replayed by the transport
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "jwt-user "+token)
	res, err := hc.Do(req)
	if err != nil {
		o.err = err
		return o
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	o.err, o.status, o.closeAfter = err, res.StatusCode, res.Close
	return o
}

// errKind names a transport error briefly: reset, EOF, or its text.
func errKind(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "EOF"
	case strings.Contains(err.Error(), "connection reset"):
		return "reset"
	case strings.Contains(err.Error(), "broken pipe"):
		return "broken pipe"
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op + " " + op.Err.Error()
	}
	return err.Error()
}

// TestShutdownDisconnectsSockets: at shutdown the server closes its
// sockets' transports itself, over WebSocket and long-polling, so clients
// see "transport close" (and reconnect by themselves, elsewhere), not a
// transport error or a ping timeout.
func TestShutdownDisconnectsSockets(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "SHUTDOWN_DRAIN=200ms"), "api")
	u := register(t, s.client(), "web")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transports := []string{"websocket", "polling"}
	clients := make([]*sockettest.Client, len(transports))
	for i, tr := range transports {
		clients[i] = sockettest.Start(t, s.URL, u.token, sockettest.Options{Transports: []string{tr}})
		if _, err := clients[i].WaitFor(ctx, "connect", nil); err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
	}
	s.cancel()
	for i, tr := range transports {
		m, err := clients[i].WaitFor(ctx, "disconnect", nil)
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		if m.Reason != "transport close" {
			t.Errorf("%s: disconnect reason %q, want transport close", tr, m.Reason)
		}
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit code %d, want 0:\n%s", code, s.logs.String())
	}
}
