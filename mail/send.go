package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Sender delivers a rendered message. id is the message's stable
// identifier, the same on every attempt.
type Sender interface {
	Send(ctx context.Context, m *Rendered, id string) error
}

// SMTPConfig is a parsed SMTP_URL.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// ImplicitTLS is smtps://: TLS from the first byte. Otherwise STARTTLS
	// is used when the server offers it, and RequireTLS decides what
	// happens when it does not.
	ImplicitTLS bool
	// RequireTLS makes STARTTLS mandatory for smtp://. A server that does
	// not offer it fails the send (the mail job retries) instead of
	// receiving the message, links included, in plaintext. Production sets
	// it; elsewhere it is off, so a local server without TLS still works.
	RequireTLS bool
	// Insecure skips the verification of the server's certificate
	// (?insecure=true; refused in production by the configuration).
	Insecure bool
}

// ParseSMTPURL reads smtp://[user:pass@]host:port or smtps://..., with an
// optional ?insecure=true. The default port is 587 for smtp and 465 for
// smtps.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return SMTPConfig{}, fmt.Errorf("is not a URL")
	}
	var c SMTPConfig
	switch u.Scheme {
	case "smtp":
		c.Port = 587
	case "smtps":
		c.ImplicitTLS, c.Port = true, 465
	default:
		return SMTPConfig{}, fmt.Errorf("has scheme %q; want smtp or smtps", u.Scheme)
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		return SMTPConfig{}, fmt.Errorf("has no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return SMTPConfig{}, fmt.Errorf("has an invalid port")
		}
		c.Port = n
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	for k, v := range u.Query() {
		if k != "insecure" || len(v) != 1 {
			return SMTPConfig{}, fmt.Errorf("has an unknown parameter %q; only insecure=true is known", k)
		}
		b, err := strconv.ParseBool(v[0])
		if err != nil {
			return SMTPConfig{}, fmt.Errorf("has insecure=%q; want true or false", v[0])
		}
		c.Insecure = b
	}
	return c, nil
}

// Redacted is the URL without its password, for logs.
func (c SMTPConfig) Redacted() string {
	scheme := "smtp"
	if c.ImplicitTLS {
		scheme = "smtps"
	}
	user := ""
	if c.Username != "" {
		user = url.User(c.Username).String() + ":xxxxx@"
	}
	return scheme + "://" + user + net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// SMTPSender sends over SMTP with github.com/wneessen/go-mail, one
// connection per message.
type SMTPSender struct {
	Config  SMTPConfig
	From    string
	Timeout time.Duration
}

// Send delivers m. An error means the server did not accept it (or could
// not be reached) and the job should retry; once the server accepted the
// data, a failure to close the connection is not an error.
func (s *SMTPSender) Send(ctx context.Context, m *Rendered, id string) error {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(s.From); err != nil {
		return fmt.Errorf("mail: MAIL_FROM: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(id + "@actionkit")
	msg.SetDate()
	msg.SetGenHeader("Content-Language", m.Locale)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)

	timeout := s.Timeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	opts := []gomail.Option{gomail.WithPort(s.Config.Port), gomail.WithTimeout(timeout),
		gomail.WithTLSConfig(&tls.Config{ServerName: s.Config.Host, InsecureSkipVerify: s.Config.Insecure, MinVersion: tls.VersionTLS12})}
	if s.Config.ImplicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else if s.Config.RequireTLS {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.Config.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.Config.Username), gomail.WithPassword(s.Config.Password))
	}
	c, err := gomail.NewClient(s.Config.Host, opts...)
	if err != nil {
		return fmt.Errorf("mail: smtp client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.DialWithContext(ctx); err != nil {
		return fmt.Errorf("mail: connect %s: %w", net.JoinHostPort(s.Config.Host, strconv.Itoa(s.Config.Port)), err)
	}
	if err := c.Send(msg); err != nil {
		_ = c.Close()
		return fmt.Errorf("mail: send: %w", err)
	}
	_ = c.Close() // accepted: a failed QUIT must not cause a second delivery
	return nil
}

// LogSender stands in for SMTP outside production when SMTP_URL is unset:
// it logs each mail at INFO, its link included, so that a developer can
// follow the link. It is never used in production.
type LogSender struct {
	Log *slog.Logger
}

// Send logs m.
func (s LogSender) Send(_ context.Context, m *Rendered, id string) error {
	s.Log.Info("mail not sent (no SMTP_URL): logged instead, link included by design outside production",
		"kind", m.Kind, "to", m.To, "locale", m.Locale, "subject", m.Subject, "link", m.Link, "messageId", id)
	return nil
}
