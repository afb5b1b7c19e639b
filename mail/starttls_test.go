package mail

import (
	"strings"
	"testing"
	"time"
)

// TestRequiredSTARTTLSRefusesAPlaintextServer sends through the real test
// SMTP server, which does not offer STARTTLS: with RequireTLS (production)
// the send fails before any message is handed over; without it the
// message goes in plaintext, as before.
func TestRequiredSTARTTLSRefusesAPlaintextServer(t *testing.T) {
	srv, cfg := startSMTP(t)
	m, err := testTemplates(t).Render(Message{Kind: PasswordReset, To: "ada@example.com", Locale: "en",
		Link: "https://x.test/demo#reset=0123", ValidFor: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	required := cfg
	required.RequireTLS = true
	send := func(c SMTPConfig, id string) error {
		return (&SMTPSender{Config: c, From: "actionkit <no-reply@localhost>", Timeout: 10 * time.Second}).Send(t.Context(), m, id)
	}
	err = send(required, "required")
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "starttls") {
		t.Fatalf("send with STARTTLS required: %v, want a STARTTLS failure", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages handed over in plaintext with STARTTLS required", n)
	}
	if err := send(cfg, "opportunistic"); err != nil {
		t.Fatalf("send without the requirement: %v", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("%d messages after an opportunistic send, want 1", n)
	}
}
