package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

// connectOutcome is what one fresh connection of the connect storm saw.
type connectOutcome struct {
	connected bool // the TCP handshake completed
	status    int
	err       error
}

// TestShutdownAnswersEveryConnection opens fresh connections as fast as it
// can, one request each, right up to the listener's close, several rounds.
// A connection whose handshake completed reached the server while it was
// listening, so its request must get an HTTP answer: no reset, no EOF. Only
// connects refused once the listener has closed may fail.
func TestShutdownAnswersEveryConnection(t *testing.T) {
	const rounds, workers = 6, 64
	var total, refused, broken int
	kinds := map[string]int{}
	for round := range rounds {
		n, r, b := connectStorm(t, round, workers, kinds)
		total, refused, broken = total+n, refused+r, broken+b
	}
	t.Logf("%d rounds: %d connections, %d refused after the listener closed, %d broken %v",
		rounds, total, refused, broken, kinds)
	if broken > 0 {
		t.Errorf("%d of %d connections that completed their handshake got no answer", broken, total)
	}
}

// connectStorm runs one round: workers open connection after connection
// (one GET /health each) until a connect is refused, while the server is
// stopped. It returns the connections tried, those refused and those
// broken after their handshake, counting the kinds of breakage.
func connectStorm(t *testing.T, round, workers int, kinds map[string]int) (total, refused, broken int) {
	t.Helper()
	s := startServer(t, testEnv(t, "SHUTDOWN_DRAIN=100ms", "LOG_LEVEL=warn"), "api")
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	st := &storm{addr: strings.TrimPrefix(s.URL, "http://"), open: make(chan struct{}, 6000)}
	for range workers {
		st.workers.Go(func() { st.work(ctx) })
	}
	poll.Until(t, 10*time.Second, "connections answered", func() bool { return st.answered.Load() >= 500 })
	s.cancel()
	st.workers.Wait()
	st.requests.Wait()
	if ctx.Err() != nil {
		t.Fatalf("round %d: the storm did not end with the listener's close", round)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("round %d: exit code %d:\n%s", round, code, s.logs.String())
	}
	for _, o := range st.results {
		total++
		switch {
		case !o.connected:
			refused++
		case o.err != nil:
			broken++
			kinds[errKind(o.err)]++
		case o.status != http.StatusOK && o.status != http.StatusServiceUnavailable:
			t.Errorf("round %d: /health answered %d", round, o.status)
		}
	}
	t.Logf("round %d: %d connections, %d refused after the listener closed, %d broken",
		round, total, refused, broken)
	if refused == 0 {
		t.Errorf("round %d: no connect was refused", round)
	}
	return total, refused, broken
}

// storm opens connections in an open loop: a worker dials its next
// connection without waiting for the last one's answer, so connects keep
// arriving through the listener's close as they do from many independent
// callers. Bounded: len(open) connections open at most, 4,000 a worker.
type storm struct {
	addr     string
	open     chan struct{}
	answered atomic.Int64
	workers  sync.WaitGroup
	requests sync.WaitGroup
	mu       sync.Mutex
	results  []connectOutcome
}

// work is one worker: it dials until a connect fails (the listener is
// closed) or ctx ends, each connection's request on its own goroutine.
func (s *storm) work(ctx context.Context) {
	for range 4000 {
		if ctx.Err() != nil {
			return
		}
		s.open <- struct{}{}
		c, err := net.DialTimeout("tcp", s.addr, 10*time.Second)
		if err != nil {
			<-s.open
			s.record(connectOutcome{err: err})
			return
		}
		s.requests.Go(func() {
			defer func() { <-s.open }()
			s.record(requestOnce(c))
		})
	}
}

func (s *storm) record(o connectOutcome) {
	s.mu.Lock()
	s.results = append(s.results, o)
	s.mu.Unlock()
	if o.err == nil {
		s.answered.Add(1)
	}
}

// requestOnce sends GET /health on a fresh connection, reads the answer
// and closes the connection.
func requestOnce(c net.Conn) connectOutcome {
	defer c.Close()
	o := connectOutcome{connected: true}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"); err != nil {
		o.err = fmt.Errorf("write: %w", err)
		return o
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		o.err = err
		return o
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		o.err = err
	}
	o.status = res.StatusCode
	return o
}
