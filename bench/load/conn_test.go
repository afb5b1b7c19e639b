package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPConnAgainstNetHTTP talks to net/http's server: fixed-length,
// chunked, empty and large answers over one kept-alive connection, and a
// new connection after the server asked to close.
func TestHTTPConnAgainstNetHTTP(t *testing.T) {
	big := strings.Repeat("0123456789", 10_000)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			_, _ = io.WriteString(w, `{"ok":true}`)
		case "/chunked":
			for i := range 3 {
				fmt.Fprintf(w, "part%d;", i)
				w.(http.Flusher).Flush()
			}
		case "/big":
			_, _ = io.WriteString(w, big)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, "bye")
		case "/echo":
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s %s %s", r.Method, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), body)
		}
	}))
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := newHTTPConn(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	get := func(path string) (int, string) {
		t.Helper()
		status, body, err := c.roundTrip(appendRequest(nil, "GET", c.host, path, nil))
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return status, string(body)
	}
	for range 50 {
		if status, body := get("/small"); status != 200 || body != `{"ok":true}` {
			t.Fatalf("/small: %d %q", status, body)
		}
	}
	if status, body := get("/chunked"); status != 200 || body != "part0;part1;part2;" {
		t.Errorf("/chunked: %d %q", status, body)
	}
	if status, body := get("/big"); status != 200 || body != big {
		t.Errorf("/big: %d, %d bytes", status, len(body))
	}
	if status, body := get("/empty"); status != 204 || body != "" {
		t.Errorf("/empty: %d %q", status, body)
	}
	req := appendRequest(nil, "POST", c.host, "/echo", []byte(`{"a":1}`), "Authorization", "jwt-user x")
	if status, body, err := c.roundTrip(req); err != nil || status != 200 || string(body) != `POST jwt-user x application/json {"a":1}` {
		t.Errorf("/echo: %d %q %v", status, body, err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 54 requests, want 1 kept alive", n)
	}
	get("/close")
	get("/small")
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections after the server closed one, want 2", n)
	}
}

func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name, raw string
		status    int
		body      string
		keep      bool
		err       bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, "hello", true, false},
		{"header case and spaces", "HTTP/1.1 201 Created\r\ncontent-LENGTH:  2 \r\nX-A: b\r\n\r\nhi", 201, "hi", true, false},
		{"chunked, extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n" +
			"A\r\n0123456789\r\n0\r\nTrailer: v\r\n\r\n", 200, "abc0123456789", true, false},
		{"interim answer skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx", 404, "x", true, false},
		{"close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", 200, "x", false, false},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", 200, "x", false, false},
		{"to the end", "HTTP/1.1 200 OK\r\n\r\nall of it", 200, "all of it", false, false},
		{"not modified", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304, "", true, false},
		{"LF only", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 200, "ok", true, false},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 200, "", false, true},
		{"bad status line", "HTTP/2 200\r\n\r\n", 0, "", false, true},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 200, "", false, true},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 200, "", false, true},
		{"gzip coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 200, "", false, true},
		{"cut in the headers", "HTTP/1.1 200 OK\r\nContent-Le", 200, "", false, true},
		{"nothing", "", 0, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &httpConn{br: bufio.NewReader(strings.NewReader(tt.raw))}
			status, keep, err := c.readAnswer()
			if (err != nil) != tt.err || status != tt.status {
				t.Fatalf("got %d, %v; want %d, error %v", status, err, tt.status, tt.err)
			}
			if !tt.err && (string(c.body) != tt.body || keep != tt.keep) {
				t.Errorf("got body %q keep %v, want %q %v", c.body, keep, tt.body, tt.keep)
			}
		})
	}
}

func TestAppendRequestParses(t *testing.T) {
	for _, tt := range []struct {
		method string
		body   []byte
		length int64
	}{{"GET", nil, 0}, {"POST", []byte(`{"email":"a@b.c"}`), 17}, {"POST", nil, 0}} {
		raw := appendRequest([]byte("leftover"), tt.method, "127.0.0.1:8000", "/v1/users/read?x=1", tt.body,
			"Authorization", "jwt-user abc", "X-Client", "app")
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(strings.TrimPrefix(string(raw), "leftover"))))
		if err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		body, _ := io.ReadAll(req.Body)
		if req.Method != tt.method || req.Host != "127.0.0.1:8000" || req.URL.String() != "/v1/users/read?x=1" ||
			req.Header.Get("Authorization") != "jwt-user abc" || req.Header.Get("X-Client") != "app" ||
			string(body) != string(tt.body) || req.ContentLength != tt.length {
			t.Errorf("%s: parsed as %s %s %v, body %q, length %d", tt.method, req.Method, req.URL, req.Header, body, req.ContentLength)
		}
		if (tt.body != nil) != (req.Header.Get("Content-Type") == "application/json") {
			t.Errorf("%s: Content-Type %q", tt.method, req.Header.Get("Content-Type"))
		}
	}
}

// fixedServer answers every request on a loopback port with answer, reading
// requests without allocating. It returns the server's URL.
func fixedServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				br, out := bufio.NewReader(nc), []byte(answer)
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						return
					}
					if len(line) <= 2 { // the end of a request's head
						if _, err := nc.Write(out); err != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestReadAllocatesNothing: the read operation, measured, costs the tool no
// allocation per request once its buffers have grown.
func TestReadAllocatesNothing(t *testing.T) {
	base := fixedServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 29\r\n\r\n"+`{"status":200,"success":true}`)
	w := newWorker(0, base)
	defer w.close()
	w.user = &user{Access: "header.payload.signature"}
	w.measuring = true
	w.rec.byKind["read"] = make([]time.Duration, 0, 4096)
	ctx := context.Background()
	if err := opRead(ctx, w); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if err := opRead(ctx, w); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.0f allocations per read, want 0", allocs)
	}
	if got := len(w.rec.byKind["read"]); got != 1002 {
		t.Errorf("recorded %d reads, want 1002", got)
	}
}

func TestFailureKeyDropsAddresses(t *testing.T) {
	err := &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{Port: 1}, Addr: &net.TCPAddr{Port: 2}, Err: errors.New("connection reset by peer")}
	if got, want := failureKey("read", answer{}, err), "transport: read: connection reset by peer (read)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
