package accounts

import (
	"context"
	"log/slog"
	"time"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// noticeTTL bounds how long a notification mail may wait to be sent.
const noticeTTL = 24 * time.Hour

// notifier sends the notification mails of changes to an account: what a
// Service's Notices, ProviderName, Now and Log are at the time of the call.
type notifier struct {
	mailer *mail.Mailer
	names  func(id string) string
	now    func() time.Time
	log    *slog.Logger
}

// notices returns the notifier of the Service's current settings.
func (s *Service) notices() notifier {
	return notifier{mailer: s.Notices, names: s.ProviderName, now: s.Now, log: s.Log}
}

// send queues a notification mail of kind to the owner, when mail can be
// sent. It never fails the change it reports: the change is committed.
func (n notifier) send(ctx context.Context, acc *models.Account, kind string) {
	n.sendAbout(ctx, acc, kind, "")
}

// sendAbout is send of a change about the identity provider named
// provider.
func (n notifier) sendAbout(ctx context.Context, acc *models.Account, kind, provider string) {
	if n.mailer == nil || !n.mailer.Available() {
		return
	}
	msg := mail.Message{Kind: kind, To: acc.Email, Locale: acc.Locale, Provider: provider}
	if _, err := n.mailer.Enqueue(context.WithoutCancel(ctx), msg, n.now().Add(noticeTTL)); err != nil {
		n.log.Warn("notification mail not queued", "kind", kind, "ownerId", acc.ID.String(), "error", err.Error())
	}
}

// sendTo queues msg (a notice) to the address to in locale: for the
// notices of an e-mail change, whose recipient is not (or no longer) the
// account's address.
func (n notifier) sendTo(ctx context.Context, to, locale string, msg mail.Message) {
	if n.mailer == nil || !n.mailer.Available() {
		return
	}
	msg.To, msg.Locale = to, locale
	if _, err := n.mailer.Enqueue(context.WithoutCancel(ctx), msg, n.now().Add(noticeTTL)); err != nil {
		n.log.Warn("notification mail not queued", "kind", msg.Kind, "error", err.Error())
	}
}

// providerName is the label of the identity provider id, for mails.
func (n notifier) providerName(id string) string {
	if n.names != nil {
		if name := n.names(id); name != "" {
			return name
		}
	}
	return id
}
