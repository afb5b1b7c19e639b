package main

import (
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/smtptest"
)

// TestProductionMailRequiresSTARTTLS points SMTP_URL (smtp://) at the real
// test SMTP server, which does not offer STARTTLS. In production the
// verification mail of a registration is never handed over in plaintext:
// its job fails and is retried. In development the same server gets it.
func TestProductionMailRequiresSTARTTLS(t *testing.T) {
	t.Parallel()
	t.Run("production fails the send and retries", func(t *testing.T) {
		t.Parallel()
		smtp := smtptest.Start(t)
		s := startServer(t, testEnv(t, "APP_ENV=production", "PASSWORD_HASH_MEMORY_KIB=19456", "PASSWORD_HASH_ITERATIONS=2",
			"SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s"))
		register(t, s.client(), "web")
		failed := func() int { return strings.Count(s.logs.String(), `"msg":"job failed"`) }
		poll.Until(t, 30*time.Second, "the mail job to fail twice or the mail to arrive", func() bool {
			return failed() >= 2 || len(smtp.Messages()) > 0
		})
		if n := len(smtp.Messages()); n != 0 || smtp.Attempts() != 0 {
			t.Fatalf("%d messages (%d delivery attempts) reached a server without STARTTLS in production", n, smtp.Attempts())
		}
		logs := s.logs.String()
		if !strings.Contains(strings.ToLower(logs), "starttls") {
			t.Errorf("the failures do not name STARTTLS:\n%s", logs)
		}
	})
	t.Run("development sends without STARTTLS", func(t *testing.T) {
		t.Parallel()
		smtp := smtptest.Start(t)
		s := startServer(t, testEnv(t, "SMTP_URL="+smtp.URL(), "MAIL_RETRY_BACKOFF=0s"))
		u := register(t, s.client(), "web")
		smtp.WaitFor(t, u.email, 1, 30*time.Second)
	})
}
