// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp)
// in-process on a loopback port, captures every accepted message with its
// parsed parts, and can refuse a number of deliveries first, to exercise
// the sender's retries.
package smtptest

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one accepted message.
type Message struct {
	From    string
	To      []string
	Header  mail.Header
	Subject string
	Text    string
	HTML    string
	Raw     []byte
}

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port.
	Addr string

	mu       sync.Mutex
	refuse   int
	attempts int
	msgs     []Message
	changed  chan struct{}
	srv      *smtp.Server
}

// Start starts a server on 127.0.0.1 that is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{changed: make(chan struct{})}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr, s.srv = ln.Addr().String(), srv
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is the SMTP_URL of the server.
func (s *Server) URL() string { return "smtp://" + s.Addr }

// RefuseNext makes the next n deliveries fail with a temporary error (451)
// after the data was sent.
func (s *Server) RefuseNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = n
}

// Attempts is the number of deliveries tried so far (refused included).
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Messages returns the accepted messages so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// To returns the accepted messages addressed to addr.
func (s *Server) To(addr string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		for _, r := range m.To {
			if strings.EqualFold(r, addr) {
				out = append(out, m)
			}
		}
	}
	return out
}

// WaitFor waits until at least n messages to addr were accepted, failing
// t after timeout, and returns them.
func (s *Server) WaitFor(t testing.TB, addr string, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if got := s.To(addr); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("smtptest: %d message(s) to %s within %s, want %d", len(s.To(addr)), addr, timeout, n)
		}
	}
}

func (s *Server) deliver(from string, to []string, raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if s.refuse > 0 {
		s.refuse--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	m, err := parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "unparsable: " + err.Error()}
	}
	m.From, m.To = from, to
	s.msgs = append(s.msgs, m)
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// parse reads the headers and the text and HTML parts of raw.
func parse(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	out := Message{Header: msg.Header, Raw: raw}
	dec := new(mime.WordDecoder)
	if out.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return Message{}, err
	}
	err = walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, &out)
	return out, err
}

func walk(ctype, encoding string, body io.Reader, out *Message) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, out); err != nil {
				return err
			}
		}
	}
	var r io.Reader = body
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	case "base64":
		r = newBase64(body)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		out.Text = string(b)
	case "text/html":
		out.HTML = string(b)
	}
	return nil
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}
func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return x.s.deliver(x.from, x.to, raw)
}
