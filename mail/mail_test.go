package mail

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/internal/smtptest"
	"github.com/actionkit/actionkit/queues"
)

var locales = []string{"en", "es", "zh-TW"}

// testTemplates returns the templates of locales.
func testTemplates(t *testing.T) *Templates {
	t.Helper()
	tpl, err := NewTemplates(locales)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// startSMTP starts a real SMTP server for t and returns it with the
// configuration that sends to it.
func startSMTP(t *testing.T) (*smtptest.Server, SMTPConfig) {
	t.Helper()
	srv := smtptest.Start(t)
	cfg, err := ParseSMTPURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return srv, cfg
}

func TestRenderEveryKindAndLocale(t *testing.T) {
	tpl := testTemplates(t)
	want := map[string]string{"en": "expires in 30 minutes", "es": "caduca en 30 minutos", "zh-TW": "30 分鐘"}
	linked := map[string]bool{PasswordReset: true, EmailVerify: true, EmailChange: true, EmailChanged: true, EmailReverted: true}
	for _, loc := range locales {
		for _, kind := range Kinds {
			r, err := tpl.Render(Message{Kind: kind, To: "ada@example.com", Locale: loc,
				Link: "http://x.test/demo#reset=abc&x=<b>", ValidFor: 30 * time.Minute})
			if err != nil {
				t.Fatalf("%s %s: %v", loc, kind, err)
			}
			if r.Locale != loc || r.Subject == "" || strings.Contains(r.Subject, "\n") {
				t.Errorf("%s %s: locale %q subject %q", loc, kind, r.Locale, r.Subject)
			}
			if !linked[kind] {
				// A notice names the account, carries no link, and has
				// both parts in its language.
				if !strings.Contains(r.Text, "ada@example.com") || !strings.Contains(r.HTML, "ada@example.com") ||
					strings.Contains(r.Text, "http") || strings.Contains(r.HTML, "href") || !strings.Contains(r.HTML, `lang="`+loc+`"`) {
					t.Errorf("%s %s: notice:\n%s\n%s", loc, kind, r.Text, r.HTML)
				}
				continue
			}
			if !strings.Contains(r.Text, "http://x.test/demo#reset=abc&x=<b>") || !strings.Contains(r.Text, want[loc]) {
				t.Errorf("%s %s: text lacks the link or the lifetime:\n%s", loc, kind, r.Text)
			}
			if !strings.Contains(r.HTML, `href="http://x.test/demo#reset=abc&amp;x=%3cb%3e"`) || !strings.Contains(r.HTML, `lang="`+loc+`"`) {
				t.Errorf("%s %s: HTML lacks the escaped link or the language:\n%s", loc, kind, r.HTML)
			}
		}
	}
	r, err := tpl.Render(Message{Kind: EmailVerify, To: "a@b.c", Locale: "fr", Link: "l", ValidFor: 48 * time.Hour})
	if err != nil || r.Locale != "en" || !strings.Contains(r.Text, "48 hours") {
		t.Fatalf("fallback: %v %+v", err, r)
	}
}

func TestMissingTemplateFailsStartUp(t *testing.T) {
	full := fstest.MapFS{}
	for _, loc := range []string{"en", "es"} {
		for _, kind := range Kinds {
			full["templates/"+loc+"/"+kind+".txt"] = &fstest.MapFile{Data: []byte(`{{define "subject"}}s{{end}}b`)}
			full["templates/"+loc+"/"+kind+".html"] = &fstest.MapFile{Data: []byte(`<p>b</p>`)}
		}
	}
	if _, err := newTemplates(full, []string{"en", "es"}); err != nil {
		t.Fatal(err)
	}
	delete(full, "templates/es/"+EmailVerify+".html")
	if _, err := newTemplates(full, []string{"en", "es"}); err == nil || !strings.Contains(err.Error(), "es") {
		t.Fatalf("missing es HTML template: %v", err)
	}
	if _, err := NewTemplates([]string{"en", "fr"}); err == nil {
		t.Fatal("locale fr has no templates, want an error")
	}
}

func TestParseSMTPURL(t *testing.T) {
	c, err := ParseSMTPURL("smtp://u%40x:p%3Ass@mail.example.com:2525?insecure=true")
	if err != nil || c.Host != "mail.example.com" || c.Port != 2525 || c.Username != "u@x" || c.Password != "p:ss" || !c.Insecure || c.ImplicitTLS {
		t.Fatalf("%+v %v", c, err)
	}
	if strings.Contains(c.Redacted(), "p:ss") {
		t.Fatalf("redacted URL shows the password: %s", c.Redacted())
	}
	c, err = ParseSMTPURL("smtps://mail.example.com")
	if err != nil || c.Port != 465 || !c.ImplicitTLS {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"http://x", "smtp://", "smtp://x:0", "smtp://x?insecure=maybe", "smtp://x?tls=off"} {
		if _, err := ParseSMTPURL(bad); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

// rig is a Mailer on a real Redis with a real worker, sending to a real
// SMTP server.
type rig struct {
	mailer *Mailer
	smtp   *smtptest.Server
	pool   *redis.Pool
}

func newRig(t *testing.T) *rig {
	_, prefix, pool := redistest.New(t)
	prefix = strings.TrimSuffix(prefix, ":")
	srv, cfg := startSMTP(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m := &Mailer{Templates: testTemplates(t), Sender: &SMTPSender{Config: cfg, From: "actionkit <no-reply@localhost>"},
		Pool: pool, Prefix: prefix, Enqueuer: queues.NewEnqueuer(pool, prefix),
		Now: func() time.Time { return time.Now().UTC() }, Log: log}
	w, err := queues.NewWorker(queues.WorkerConfig{Pool: pool, Prefix: prefix, Concurrency: 1, Logger: log,
		Jobs: []queues.Job{{Queue: queues.MailQueue, Name: queues.V1SendMailTask, Handler: m.Handle, MaxFails: 5, Backoff: Backoff(0)}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(w.Stop)
	return &rig{mailer: m, smtp: srv, pool: pool}
}

func TestRefusedTwiceThenDeliveredOnce(t *testing.T) {
	r := newRig(t)
	r.smtp.RefuseNext(2)
	id, err := r.mailer.Enqueue(t.Context(), Message{Kind: PasswordReset, To: "ada@example.com", Locale: "es",
		Link: "http://localhost/demo#reset=0123", ValidFor: 30 * time.Minute}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	msgs := r.smtp.WaitFor(t, "ada@example.com", 1, 20*time.Second)
	m := msgs[0]
	if r.smtp.Attempts() != 3 {
		t.Errorf("attempts %d, want 3 (two refused, one accepted)", r.smtp.Attempts())
	}
	if m.Header.Get("Content-Language") != "es" || m.Subject != "Restablece tu contraseña" ||
		!strings.Contains(m.Text, "http://localhost/demo#reset=0123") || !strings.Contains(m.HTML, `href="http://localhost/demo#reset=0123"`) {
		t.Fatalf("message: %+v", m)
	}
	if m.Header.Get("Message-Id") != "<"+id+"@actionkit>" {
		t.Errorf("Message-Id %q", m.Header.Get("Message-Id"))
	}
	// Accepted: the content is gone, so a second run of the same job sends
	// nothing.
	r.waitKeyGone(t, id)
	if _, err := r.mailer.Enqueuer.Enqueue(queues.MailQueue, queues.V1SendMailTask, map[string]any{"messageId": id}); err != nil {
		t.Fatal(err)
	}
	r.waitQueueEmpty(t)
	if n := len(r.smtp.Messages()); n != 1 || r.smtp.Attempts() != 3 {
		t.Fatalf("%d messages, %d attempts after a second run; want 1 and 3", n, r.smtp.Attempts())
	}
}

func TestExpiredMessageIsNotSent(t *testing.T) {
	r := newRig(t)
	r.smtp.RefuseNext(1000)
	id, err := r.mailer.Enqueue(t.Context(), Message{Kind: EmailVerify, To: "bob@example.com", Locale: "en",
		Link: "l", ValidFor: time.Hour}, time.Now().Add(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r.waitKeyGone(t, id) // Redis expired it with its token
	attempts := r.smtp.Attempts()
	r.smtp.RefuseNext(0)
	r.waitQueueEmpty(t)
	if len(r.smtp.Messages()) != 0 || r.smtp.Attempts() > attempts+1 {
		t.Fatalf("an expired message was sent: %d messages", len(r.smtp.Messages()))
	}
}

func (r *rig) waitKeyGone(t *testing.T, id string) {
	t.Helper()
	poll.Until(t, 20*time.Second, "the content of message "+id+" to be deleted", func() bool {
		conn := r.pool.Get()
		defer conn.Close()
		n, err := redis.Int(conn.Do("EXISTS", r.mailer.key(id)))
		return err == nil && n == 0
	})
}

// waitQueueEmpty waits until no mail job is queued, retrying or running.
func (r *rig) waitQueueEmpty(t *testing.T) {
	t.Helper()
	ns := queues.Namespace(r.mailer.Prefix, queues.MailQueue)
	poll.Until(t, 20*time.Second, "the mail queue to be empty", func() bool {
		conn := r.pool.Get()
		defer conn.Close()
		q, _ := redis.Int(conn.Do("LLEN", ns+":jobs:"+queues.V1SendMailTask))
		retry, _ := redis.Int(conn.Do("ZCARD", ns+":retry"))
		keys, _ := redis.Strings(conn.Do("KEYS", ns+":jobs:"+queues.V1SendMailTask+":*inprogress"))
		busy := 0
		for _, k := range keys {
			n, _ := redis.Int(conn.Do("LLEN", k))
			busy += n
		}
		return q == 0 && retry == 0 && busy == 0
	})
}

// TestMethodsRemovedListsEachRemoval: the notice of a reset that removed
// sign-in methods names each of them, in both parts and every locale, with
// the names escaped in the HTML part.
func TestMethodsRemovedListsEachRemoval(t *testing.T) {
	tpl := testTemplates(t)
	removed := []Removal{{Kind: RemovedIdentity, Name: "Test IdP"}, {Kind: RemovedPasskey, Name: "<Key>"},
		{Kind: RemovedTOTP}, {Kind: RemovedRecoveryCodes}}
	for _, loc := range locales {
		r, err := tpl.Render(Message{Kind: MethodsRemoved, To: "ada@example.com", Locale: loc, Removed: removed})
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if !strings.Contains(r.Text, "Test IdP") || !strings.Contains(r.Text, "<Key>") || strings.Count(r.Text, "\n- ") != 4 {
			t.Errorf("%s text:\n%s", loc, r.Text)
		}
		if !strings.Contains(r.HTML, "&lt;Key&gt;") || strings.Count(r.HTML, "<li>") != 4 {
			t.Errorf("%s HTML:\n%s", loc, r.HTML)
		}
	}
}

// TestEmailRevertedCarriesLinkAndRemovals: the mail of a revert carries the
// link to choose a new password and, when the revert removed anything,
// names each removal, in both parts and every locale.
func TestEmailRevertedCarriesLinkAndRemovals(t *testing.T) {
	tpl := testTemplates(t)
	link := "https://app.test/demo#reset=" + strings.Repeat("ab", 32)
	for _, loc := range locales {
		for _, removed := range [][]Removal{nil, {{Kind: RemovedIdentity, Name: "Test IdP"}, {Kind: RemovedPasskey, Name: "<Key>"}, {Kind: RemovedTOTP}}} {
			r, err := tpl.Render(Message{Kind: EmailReverted, To: "ada@example.com", Locale: loc, Link: link,
				ValidFor: 30 * time.Minute, Removed: removed})
			if err != nil {
				t.Fatalf("%s: %v", loc, err)
			}
			if !strings.Contains(r.Text, link) || !strings.Contains(r.HTML, link) || !strings.Contains(r.Text, "30") {
				t.Errorf("%s: no link or lifetime:\n%s", loc, r.Text)
			}
			if strings.Count(r.Text, "\n- ") != len(removed) || strings.Count(r.HTML, "<li>") != len(removed) {
				t.Errorf("%s, %d removals:\n%s\n%s", loc, len(removed), r.Text, r.HTML)
			}
			if len(removed) > 0 && !strings.Contains(r.HTML, "&lt;Key&gt;") {
				t.Errorf("%s HTML does not escape the name:\n%s", loc, r.HTML)
			}
		}
	}
}
