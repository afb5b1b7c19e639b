package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// The load tool speaks HTTP/1.1 itself, one keep-alive connection per
// virtual user: a request is written from a buffer the worker reuses and
// the answer is parsed into another, so that a request costs the tool no
// allocation and little beyond its system calls. net/http's client hands
// every request between three goroutines and allocates a request, a
// header map and a response; at tens of thousands of requests a second on
// two cores that made the tool, not the server, the bottleneck.

// deadlineSlack is how often a connection's deadline is pushed forward:
// each request gets at least requestTimeout - deadlineSlack.
const deadlineSlack = time.Second

// errMalformed marks an answer the tool cannot parse.
var errMalformed = errors.New("malformed HTTP answer")

// httpConn is one keep-alive HTTP/1.1 connection to a server, dialled on
// first use and again after the server closed it. It is not safe for
// concurrent use.
type httpConn struct {
	addr     string // host:port to dial
	host     string // the Host header
	nc       net.Conn
	br       *bufio.Reader
	body     []byte    // the last answer's body
	deadline time.Time // the connection's current deadline
}

// newHTTPConn returns an unconnected connection to base, an http URL.
func newHTTPConn(base string) (*httpConn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("%q: want http://host:port", base)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &httpConn{addr: addr, host: u.Host}, nil
}

// close closes the connection; the next request dials again.
func (c *httpConn) close() {
	if c.nc != nil {
		_ = c.nc.Close()
		c.nc, c.br = nil, nil
	}
}

// roundTrip writes req, a whole HTTP/1.1 request, and reads the answer.
// The body is valid until the next call. Any failure closes the connection,
// and a failed request is never sent again: the server may have acted on it.
func (c *httpConn) roundTrip(req []byte) (status int, body []byte, err error) {
	if c.nc == nil {
		if err := c.dial(); err != nil {
			return 0, nil, err
		}
	}
	if now := time.Now(); c.deadline.Sub(now) < requestTimeout-deadlineSlack {
		c.deadline = now.Add(requestTimeout)
		if err := c.nc.SetDeadline(c.deadline); err != nil {
			c.close()
			return 0, nil, err
		}
	}
	if _, err := c.nc.Write(req); err != nil {
		c.close()
		return 0, nil, err
	}
	status, keep, err := c.readAnswer()
	if err != nil {
		c.close()
		return status, nil, err
	}
	if !keep {
		c.close()
	}
	return status, c.body, nil
}

// dial connects.
func (c *httpConn) dial() error {
	nc, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
	if err != nil {
		return err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c.nc, c.br, c.deadline = nc, bufio.NewReaderSize(nc, 16<<10), time.Time{}
	return nil
}

// readAnswer reads one answer, skipping interim (1xx) ones, into c.body.
// keep is false when the connection cannot carry another request.
func (c *httpConn) readAnswer() (status int, keep bool, err error) {
	for {
		h, err := readHead(c.br)
		if err != nil {
			return h.status, false, err
		}
		if h.status >= 100 && h.status < 200 {
			continue
		}
		c.body = c.body[:0]
		switch {
		case h.status == 204 || h.status == 304:
		case h.chunked:
			c.body, err = readChunked(c.br, c.body)
		case h.length >= 0:
			c.body, err = readN(c.br, c.body, h.length)
		default: // the body runs to the end of the connection
			c.body, err = readAll(c.br, c.body)
			h.close = true
		}
		return h.status, err == nil && !h.close, err
	}
}

// head is what the tool needs of an answer's status line and headers.
type head struct {
	status  int
	length  int64 // -1 when absent
	chunked bool
	close   bool
}

// readHead reads a status line and the headers after it.
func readHead(br *bufio.Reader) (head, error) {
	h := head{length: -1}
	line, err := readLine(br)
	if err != nil {
		return h, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	n, err := strconv.Atoi(string(line[9:12]))
	if err != nil || n < 100 || n > 999 {
		return h, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	h.status = n
	h.close = line[7] == '0' // HTTP/1.0 closes unless told otherwise; this tool does not ask
	for {
		line, err := readLine(br)
		if err != nil {
			return h, err
		}
		if len(line) == 0 {
			return h, nil
		}
		if err := h.header(line); err != nil {
			return h, err
		}
	}
}

// header applies one header line to h.
func (h *head) header(line []byte) error {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return fmt.Errorf("%w: header %q", errMalformed, line)
	}
	value = bytes.TrimSpace(value)
	switch {
	case asciiEqualFold(name, "content-length"):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: Content-Length %q", errMalformed, value)
		}
		h.length = n
	case asciiEqualFold(name, "transfer-encoding"):
		h.chunked = asciiEqualFold(value, "chunked")
		if !h.chunked {
			return fmt.Errorf("%w: Transfer-Encoding %q", errMalformed, value)
		}
	case asciiEqualFold(name, "connection"):
		h.close = asciiEqualFold(value, "close")
	}
	return nil
}

// readLine returns the next line without its CRLF (or LF). The slice is
// valid until the next read from br.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%w: a line longer than %d bytes", errMalformed, br.Size())
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// readN appends the next n bytes of br to dst.
func readN(br *bufio.Reader, dst []byte, n int64) ([]byte, error) {
	if n > 64<<20 {
		return dst, fmt.Errorf("%w: a body of %d bytes", errMalformed, n)
	}
	start := len(dst)
	dst = grow(dst, int(n))
	_, err := io.ReadFull(br, dst[start:])
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return dst, err
}

// readChunked appends a chunked body to dst, trailers skipped.
func readChunked(br *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		line, err := readLine(br)
		if err != nil {
			return dst, err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			return dst, fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if n == 0 {
			for { // trailers, up to the empty line
				line, err := readLine(br)
				if err != nil || len(line) == 0 {
					return dst, err
				}
			}
		}
		if dst, err = readN(br, dst, n); err != nil {
			return dst, err
		}
		if line, err := readLine(br); err != nil || len(line) != 0 {
			return dst, errors.Join(err, fmt.Errorf("%w: no CRLF after a chunk", errMalformed))
		}
	}
}

// readAll appends the rest of br to dst.
func readAll(br *bufio.Reader, dst []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	_, err := buf.ReadFrom(br)
	return buf.Bytes(), err
}

// grow extends b by n bytes, keeping its contents.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// asciiEqualFold reports whether b equals the lower-case ASCII s, ignoring
// case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// appendRequest appends an HTTP/1.1 request to dst: method, path, the Host
// header, headers (name, value pairs) and, when body is not nil, a JSON
// body with its length. A POST without a body says Content-Length: 0.
func appendRequest(dst []byte, method, host, path string, body []byte, headers ...string) []byte {
	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\n"...)
	for i := 0; i+1 < len(headers); i += 2 {
		dst = append(dst, headers[i]...)
		dst = append(dst, ": "...)
		dst = append(dst, headers[i+1]...)
		dst = append(dst, "\r\n"...)
	}
	if body != nil {
		dst = append(dst, "Content-Type: application/json\r\n"...)
	}
	if body != nil || (method != "GET" && method != "HEAD") {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, body...)
}
