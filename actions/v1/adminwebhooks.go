package v1

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/webhooks"
)

// The admin actions of webhooks (docs/webhooks.md). Every change is
// sensitive: a stolen admin session alone must not send the security
// events elsewhere.

// adminWebhooksSpec names an admin action on webhooks: verb "ListWebhooks"
// becomes V1AdminListWebhooks at /v1/admins/webhooks<path>.
func adminWebhooksSpec(verb, path, summary string, sensitive bool, errs ...errorcodes.Code) action.Spec {
	return adminSpec("/v1/admins/webhooks", verb, path, summary, sensitive, errs...)
}

// adminSpec names an admin action of one of the admins' management
// sections: verb "ListWebhooks" becomes V1AdminListWebhooks at
// section<path>; a sensitive one needs a recent re-authentication.
func adminSpec(section, verb, path, summary string, sensitive bool, errs ...errorcodes.Code) action.Spec {
	s := action.Spec{
		Name:    "V1Admin" + verb,
		Path:    section + path,
		Summary: summary,
		Auth:    action.Owner(accounts.Admins.Type),
		Errors:  errs,
	}
	if sensitive {
		s.Reauth = action.ReauthRecent
	}
	return s
}

// WebhookView is a webhook on the wire; its secret never is.
type WebhookView struct {
	ID          uuid.UUID `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description string    `json:"description"`
	Enabled     bool      `json:"enabled"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func viewWebhook(w *models.Webhook) *WebhookView {
	return &WebhookView{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description,
		Enabled: w.Enabled, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// DeliveryView is a webhook delivery on the wire.
type DeliveryView struct {
	ID             uuid.UUID  `json:"id"`
	EventID        uuid.UUID  `json:"eventId"`
	Type           string     `json:"type"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	LastStatusCode *int       `json:"lastStatusCode"`
	LastError      *string    `json:"lastError"`
	NextAttemptAt  *time.Time `json:"nextAttemptAt"`
	CreatedAt      time.Time  `json:"createdAt"`
	DeliveredAt    *time.Time `json:"deliveredAt"`
}

func viewDelivery(d *models.Delivery) DeliveryView {
	v := DeliveryView{ID: d.ID, EventID: d.EventID, Type: d.Type, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: d.LastError, CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt}
	if d.Status == models.DeliveryPending {
		v.NextAttemptAt = d.NextAttemptAt
	}
	return v
}

// webhookError maps the webhooks' failures to error codes.
func webhookError(err error) error {
	var fe *webhooks.FieldError
	switch {
	case errors.Is(err, webhooks.ErrNotFound):
		return webhooks.WebhookNotFound.New()
	case errors.As(err, &fe):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			fe.Field: {Code: "invalid", Message: fe.Reason},
		})
	}
	return err
}

// WebhooksResult lists webhooks.
type WebhooksResult struct {
	Webhooks []*WebhookView `json:"webhooks"`
}

// WebhookResult is one webhook.
type WebhookResult struct {
	Webhook *WebhookView `json:"webhook"`
}

// WebhookSecretResult is a webhook with its new secret, shown this once.
type WebhookSecretResult struct {
	Webhook *WebhookView `json:"webhook"`
	Secret  string       `json:"secret"`
}

// WebhookIDArgs name a webhook.
type WebhookIDArgs struct {
	ID uuid.UUID `arg:"id" validate:"required"`
}

// AdminListWebhooks lists every webhook, newest first.
type AdminListWebhooks struct {
	Webhooks *webhooks.Service
}

// Spec declares V1AdminListWebhooks.
func (a *AdminListWebhooks) Spec() action.Spec {
	return adminWebhooksSpec("ListWebhooks", "", "List the webhooks", false)
}

// Run lists them.
func (a *AdminListWebhooks) Run(ctx context.Context, _ *action.Request, _ *Empty) (*WebhooksResult, error) {
	list, err := a.Webhooks.List(ctx)
	if err != nil {
		return nil, err
	}
	out := &WebhooksResult{Webhooks: make([]*WebhookView, len(list))}
	for i := range list {
		out.Webhooks[i] = viewWebhook(&list[i])
	}
	return out, nil
}

// AdminCreateWebhook makes a webhook and shows its secret once.
type AdminCreateWebhook struct {
	Webhooks *webhooks.Service
}

// CreateWebhookArgs are the arguments of AdminCreateWebhook.
type CreateWebhookArgs struct {
	URL         string   `arg:"url" mod:"trim" validate:"required,max=2048"`
	Events      []string `arg:"events" validate:"required"`
	Description string   `arg:"description" mod:"trim" validate:"max=500"`
}

// Spec declares V1AdminCreateWebhook.
func (a *AdminCreateWebhook) Spec() action.Spec {
	s := adminWebhooksSpec("CreateWebhook", "/create", "Send security events to a URL", true)
	s.Status = http.StatusCreated
	return s
}

// Run makes it.
func (a *AdminCreateWebhook) Run(ctx context.Context, _ *action.Request, in *CreateWebhookArgs) (*WebhookSecretResult, error) {
	w, secret, err := a.Webhooks.Create(ctx, webhooks.Input{URL: &in.URL, Events: in.Events, Description: &in.Description})
	if err != nil {
		return nil, webhookError(err)
	}
	return &WebhookSecretResult{Webhook: viewWebhook(w), Secret: secret}, nil
}

// AdminUpdateWebhook changes a webhook; what is not given stays.
type AdminUpdateWebhook struct {
	Webhooks *webhooks.Service
}

// UpdateWebhookArgs are the arguments of AdminUpdateWebhook.
type UpdateWebhookArgs struct {
	ID          uuid.UUID `arg:"id" validate:"required"`
	URL         *string   `arg:"url" mod:"trim" validate:"max=2048"`
	Events      []string  `arg:"events"`
	Description *string   `arg:"description" mod:"trim" validate:"max=500"`
	Enabled     *bool     `arg:"enabled"`
}

// Spec declares V1AdminUpdateWebhook.
func (a *AdminUpdateWebhook) Spec() action.Spec {
	return adminWebhooksSpec("UpdateWebhook", "/update", "Change a webhook", true, webhooks.WebhookNotFound)
}

// Run changes it.
func (a *AdminUpdateWebhook) Run(ctx context.Context, _ *action.Request, in *UpdateWebhookArgs) (*WebhookResult, error) {
	w, err := a.Webhooks.Update(ctx, in.ID, webhooks.Input{URL: in.URL, Events: in.Events,
		Description: in.Description, Enabled: in.Enabled})
	if err != nil {
		return nil, webhookError(err)
	}
	return &WebhookResult{Webhook: viewWebhook(w)}, nil
}

// AdminRotateWebhookSecret gives a webhook a new secret; the old one signs
// too for a day.
type AdminRotateWebhookSecret struct {
	Webhooks *webhooks.Service
}

// Spec declares V1AdminRotateWebhookSecret.
func (a *AdminRotateWebhookSecret) Spec() action.Spec {
	return adminWebhooksSpec("RotateWebhookSecret", "/rotatesecret", "Give a webhook a new secret", true, webhooks.WebhookNotFound)
}

// Run rotates it.
func (a *AdminRotateWebhookSecret) Run(ctx context.Context, _ *action.Request, in *WebhookIDArgs) (*WebhookSecretResult, error) {
	w, secret, err := a.Webhooks.RotateSecret(ctx, in.ID)
	if err != nil {
		return nil, webhookError(err)
	}
	return &WebhookSecretResult{Webhook: viewWebhook(w), Secret: secret}, nil
}

// AdminDeleteWebhook removes a webhook and its deliveries.
type AdminDeleteWebhook struct {
	Webhooks *webhooks.Service
}

// Spec declares V1AdminDeleteWebhook.
func (a *AdminDeleteWebhook) Spec() action.Spec {
	return adminWebhooksSpec("DeleteWebhook", "/delete", "Remove a webhook and its deliveries", true, webhooks.WebhookNotFound)
}

// Run removes it.
func (a *AdminDeleteWebhook) Run(ctx context.Context, _ *action.Request, in *WebhookIDArgs) (*Empty, error) {
	if err := a.Webhooks.Delete(ctx, in.ID); err != nil {
		return nil, webhookError(err)
	}
	return &Empty{}, nil
}

// AdminWebhookDeliveries pages through a webhook's deliveries.
type AdminWebhookDeliveries struct {
	Webhooks *webhooks.Service
}

// WebhookDeliveriesArgs are the arguments of AdminWebhookDeliveries.
type WebhookDeliveriesArgs struct {
	ID     uuid.UUID `arg:"id" validate:"required"`
	Status string    `arg:"status" mod:"trim,lower" default:"all" validate:"oneof=pending|delivered|failed|all"`
	Limit  int       `arg:"limit" default:"50" validate:"min=1,max=100"`
	Cursor string    `arg:"cursor" validate:"max=64"`
}

// DeliveriesResult is a page of deliveries; NextCursor is null on the last.
type DeliveriesResult struct {
	Deliveries []DeliveryView `json:"deliveries"`
	NextCursor *string        `json:"nextCursor"`
}

// Spec declares V1AdminWebhookDeliveries.
func (a *AdminWebhookDeliveries) Spec() action.Spec {
	return adminWebhooksSpec("WebhookDeliveries", "/deliveries", "Page through a webhook's deliveries", false, webhooks.WebhookNotFound)
}

// Run answers a page.
func (a *AdminWebhookDeliveries) Run(ctx context.Context, _ *action.Request, in *WebhookDeliveriesArgs) (*DeliveriesResult, error) {
	list, next, err := a.Webhooks.Deliveries(ctx, in.ID, in.Status, in.Cursor, in.Limit)
	if err != nil {
		return nil, webhookError(err)
	}
	out := &DeliveriesResult{Deliveries: make([]DeliveryView, len(list)), NextCursor: cursorOrNull(next)}
	for i := range list {
		out.Deliveries[i] = viewDelivery(&list[i])
	}
	return out, nil
}

// AdminRedeliverWebhook sends a delivery again, with its id.
type AdminRedeliverWebhook struct {
	Webhooks *webhooks.Service
}

// RedeliverArgs name a delivery.
type RedeliverArgs struct {
	DeliveryID uuid.UUID `arg:"deliveryId" validate:"required"`
}

// DeliveryResult is one delivery.
type DeliveryResult struct {
	Delivery DeliveryView `json:"delivery"`
}

// Spec declares V1AdminRedeliverWebhook.
func (a *AdminRedeliverWebhook) Spec() action.Spec {
	return adminWebhooksSpec("RedeliverWebhook", "/redeliver", "Send a delivery again", true, webhooks.WebhookNotFound)
}

// Run queues it again.
func (a *AdminRedeliverWebhook) Run(ctx context.Context, _ *action.Request, in *RedeliverArgs) (*DeliveryResult, error) {
	d, err := a.Webhooks.Redeliver(ctx, in.DeliveryID)
	if err != nil {
		return nil, webhookError(err)
	}
	return &DeliveryResult{Delivery: viewDelivery(d)}, nil
}
