package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/webhooks"
)

// defaultWebhookPoll is how often a worker looks for due webhook
// deliveries: the delay of a first delivery after its event.
const defaultWebhookPoll = time.Second

// newWebhooks builds the webhooks engine (compose calls it once, after
// the metrics).
func (a *app) newWebhooks() *webhooks.Service {
	svc := webhooks.NewService(a.db, a.cfg.DataKey, &webhooks.Guard{Insecure: a.cfg.InsecureHosts}, a.now, a.log)
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actionkit_webhook_attempts_total",
		Help: "Webhook delivery attempts by the delivery's status after it: delivered, pending (a retry is due) or failed.",
	}, []string{"outcome"})
	a.metrics.registry.MustRegister(attempts)
	svc.Attempted = func(status string) { attempts.WithLabelValues(status).Inc() }
	return svc
}

// registerWebhookActions mounts the admin actions of webhooks.
func (a *app) registerWebhookActions(fw *framework.Framework) {
	framework.Register(fw, &v1.AdminListWebhooks{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminCreateWebhook{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminUpdateWebhook{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminRotateWebhookSecret{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminDeleteWebhook{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminWebhookDeliveries{Webhooks: a.webhooks})
	framework.Register(fw, &v1.AdminRedeliverWebhook{Webhooks: a.webhooks})
}

// pollWebhooks sends the due webhook deliveries until ctx ends, then waits
// for the attempts under way. The table is the queue: any number of
// workers poll it, each delivery claimed by one (webhooks.Service.RunDue).
func (a *app) pollWebhooks(ctx context.Context) {
	period := a.webhookPoll
	if period <= 0 {
		period = defaultWebhookPoll
	}
	a.webhooks.Poll(ctx, period)
}
