package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/queues"
)

// ErrUnavailable is returned by Enqueue when no mail can be sent
// (production without SMTP_URL).
var ErrUnavailable = errors.New("mail: no SMTP server configured")

// Mailer queues mails and is the handler of V1SendMailTask.
type Mailer struct {
	Templates *Templates
	// Sender delivers; nil means mail is unavailable.
	Sender Sender
	// Pool and Prefix (JOBS_NAMESPACE) locate the message keys.
	Pool     *redis.Pool
	Prefix   string
	Enqueuer *queues.Enqueuer
	Now      func() time.Time
	Log      *slog.Logger
}

// Available reports whether mails can be sent.
func (m *Mailer) Available() bool { return m != nil && m.Sender != nil }

// key is the Redis key of a queued message's content.
func (m *Mailer) key(id string) string {
	return queues.Namespace(m.Prefix, queues.MailQueue) + ":message:" + id
}

// Enqueue renders msg once (to fail early on a template error), stores its
// content until expires (the expiry of the token its link carries) and
// enqueues the job that sends it. It returns the message id.
func (m *Mailer) Enqueue(ctx context.Context, msg Message, expires time.Time) (string, error) {
	if !m.Available() {
		return "", ErrUnavailable
	}
	if _, err := m.Templates.Render(msg); err != nil {
		return "", err
	}
	if !expires.After(m.Now()) {
		return "", fmt.Errorf("mail: message expires at %s, in the past", expires)
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b)
	raw, err := json.Marshal(msg)
	if err != nil {
		return "", err
	}
	conn, err := m.Pool.GetContext(ctx)
	if err != nil {
		return "", fmt.Errorf("mail: redis: %w", err)
	}
	_, err = redis.DoContext(conn, ctx, "SET", m.key(id), raw, "PXAT", expires.UnixMilli())
	conn.Close()
	if err != nil {
		return "", fmt.Errorf("mail: store message: %w", err)
	}
	if _, err := m.Enqueuer.Enqueue(queues.MailQueue, queues.V1SendMailTask, map[string]any{"messageId": id}); err != nil {
		return "", err
	}
	return id, nil
}

// Handle runs V1SendMailTask. A message whose content is gone (its token
// expired, or it was sent already) is dropped. A send failure is returned,
// so the job is retried with back-off. After the server accepted the
// message its content is deleted: a second run of the job sends nothing.
func (m *Mailer) Handle(ctx context.Context, job *work.Job) error {
	id := job.ArgString("messageId")
	if len(id) != 32 {
		m.Log.Warn("mail job without a valid messageId: dropped", "jobId", job.ID)
		return nil
	}
	if m.Sender == nil {
		return ErrUnavailable
	}
	conn, err := m.Pool.GetContext(ctx)
	if err != nil {
		return fmt.Errorf("mail: redis: %w", err)
	}
	defer conn.Close()
	raw, err := redis.Bytes(redis.DoContext(conn, ctx, "GET", m.key(id)))
	if errors.Is(err, redis.ErrNil) {
		m.Log.Info("mail dropped: its link expired or it was sent already", "messageId", id, "jobId", job.ID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("mail: read message: %w", err)
	}
	var msg Message
	if err := json.Unmarshal(raw, &msg); err != nil {
		m.Log.Error("mail dropped: unreadable message", "messageId", id, "error", err.Error())
		return nil
	}
	r, err := m.Templates.Render(msg)
	if err != nil {
		m.Log.Error("mail dropped: cannot render", "messageId", id, "kind", msg.Kind, "error", err.Error())
		return nil
	}
	if err := m.Sender.Send(ctx, r, id); err != nil {
		return err
	}
	if _, err := redis.DoContext(conn, ctx, "DEL", m.key(id)); err != nil {
		// Accepted: the job must not fail, or it would send again.
		m.Log.Warn("mail sent but its content not deleted; it expires with its link", "messageId", id, "error", err.Error())
	}
	// "Handed over": to the SMTP server, or to the log when there is none.
	m.Log.Info("mail handed over", "messageId", id, "kind", msg.Kind, "locale", r.Locale)
	return nil
}

// Backoff returns a gocraft back-off: base doubled on each failure, capped
// at an hour; a zero base retries at once (tests).
func Backoff(base time.Duration) work.BackoffCalculator {
	return func(job *work.Job) int64 {
		if base <= 0 {
			return 0
		}
		d := base
		for i := int64(1); i < job.Fails && d < time.Hour; i++ {
			d *= 2
		}
		return int64(min(d, time.Hour) / time.Second)
	}
}
