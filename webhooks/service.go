package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/models"
)

// RotationGrace is how long a replaced secret keeps signing beside the new
// one, so that a receiver can switch to the new secret at its pace.
const RotationGrace = 24 * time.Hour

// ErrNotFound reports an unknown webhook or delivery.
var ErrNotFound = errors.New("webhooks: not found")

// FieldError is an invalid argument: Field is its name (url, events).
type FieldError struct {
	Field, Reason string
}

func (e *FieldError) Error() string { return "webhooks: " + e.Field + " " + e.Reason }

// Service manages the webhooks and sends their deliveries. Fields are
// dependencies, set once before use.
type Service struct {
	DB            *sqlx.DB
	Webhooks      models.WebhookStore
	DeliveryStore models.DeliveryStore
	// Key seals the secrets (DATA_ENCRYPTION_KEY).
	Key   *datakey.Key
	Guard *Guard
	// Now returns the current time in UTC, truncated to microseconds.
	Now func() time.Time
	Log *slog.Logger
	// Attempted, when set, is called after each recorded attempt with the
	// delivery's status: delivered, pending (a retry is due) or failed.
	Attempted func(status string)

	// client makes the attempts, every connection through Guard.
	client *http.Client
}

// NewService returns a Service over db with its stores prepared on db, its
// attempts made through guard (whose fields may still be set before the
// first attempt).
func NewService(db *sqlx.DB, key *datakey.Key, guard *Guard, now func() time.Time, log *slog.Logger) *Service {
	return &Service{DB: db, Webhooks: models.WebhookStore{}.Prepared(db), DeliveryStore: models.DeliveryStore{}.Prepared(db),
		Key: key, Guard: guard, Now: now, Log: log, client: newClient(guard)}
}

// Input is what an admin gives of a webhook; nil members of an update
// stay as they are.
type Input struct {
	URL         *string
	Events      []string
	Description *string
	Enabled     *bool
}

// check validates in: the URL through the guard, the event types.
func (s *Service) check(ctx context.Context, in *Input) error {
	if in.URL != nil {
		if err := s.Guard.CheckURL(ctx, *in.URL); err != nil {
			return &FieldError{Field: "url", Reason: err.Error()}
		}
	}
	if in.Events != nil {
		ev, ok := checkEvents(in.Events)
		if !ok {
			return &FieldError{Field: "events", Reason: `must list event types, or be ["*"]`}
		}
		in.Events = ev
	}
	return nil
}

// secretContext binds a sealed secret to its webhook.
func secretContext(id uuid.UUID) []byte { return []byte("webhook-secret:" + id.String()) }

// seal returns a new secret and its sealed form for webhook id.
func (s *Service) seal(id uuid.UUID) (secret string, ciphertext, nonce []byte, err error) {
	secret = NewSecret()
	ciphertext, nonce, err = s.Key.Seal([]byte(secret), secretContext(id))
	return secret, ciphertext, nonce, err
}

// Create stores a new enabled webhook and returns it with its secret, the
// only time the secret is shown.
func (s *Service) Create(ctx context.Context, in Input) (*models.Webhook, string, error) {
	if in.URL == nil {
		return nil, "", &FieldError{Field: "url", Reason: "is required"}
	}
	if in.Events == nil {
		return nil, "", &FieldError{Field: "events", Reason: "is required"}
	}
	if err := s.check(ctx, &in); err != nil {
		return nil, "", err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, "", err
	}
	secret, ct, nonce, err := s.seal(id)
	if err != nil {
		return nil, "", err
	}
	w := &models.Webhook{ID: id, URL: *in.URL, Events: in.Events, SecretCiphertext: ct, SecretNonce: nonce}
	if in.Description != nil {
		w.Description = *in.Description
	}
	w, err = s.Webhooks.Insert(ctx, s.DB, w, s.Now())
	return w, secret, err
}

// List returns every webhook, newest first.
func (s *Service) List(ctx context.Context) ([]models.Webhook, error) {
	return s.Webhooks.List(ctx, s.DB)
}

// Update changes the webhook id.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*models.Webhook, error) {
	if err := s.check(ctx, &in); err != nil {
		return nil, err
	}
	w, err := s.Webhooks.Update(ctx, s.DB, id, models.WebhookChange{URL: in.URL, Events: in.Events,
		Description: in.Description, Enabled: in.Enabled}, s.Now())
	return w, notFound(err)
}

// RotateSecret gives the webhook id a new secret and returns it; the old
// one signs too for RotationGrace.
func (s *Service) RotateSecret(ctx context.Context, id uuid.UUID) (*models.Webhook, string, error) {
	secret, ct, nonce, err := s.seal(id)
	if err != nil {
		return nil, "", err
	}
	now := s.Now()
	w, err := s.Webhooks.Rotate(ctx, s.DB, id, ct, nonce, now, now.Add(RotationGrace))
	return w, secret, notFound(err)
}

// Delete removes the webhook id and its deliveries.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return notFound(s.Webhooks.Delete(ctx, s.DB, id))
}

// Deliveries returns at most limit deliveries of the webhook id with
// status ("all" for any), newest first, from cursor (empty: the newest),
// and the next page's cursor (empty on the last page).
func (s *Service) Deliveries(ctx context.Context, id uuid.UUID, status, cursor string, limit int) ([]models.Delivery, string, error) {
	after, err := accounts.DecodeCursor(cursor)
	if err != nil {
		return nil, "", &FieldError{Field: "cursor", Reason: "is not a cursor of this listing"}
	}
	if _, err := s.Webhooks.ByID(ctx, s.DB, id); err != nil {
		return nil, "", notFound(err)
	}
	list, err := s.DeliveryStore.List(ctx, s.DB, id, status, after, limit+1)
	if err != nil || len(list) <= limit {
		return list, "", err
	}
	last := list[limit-1]
	return list[:limit], accounts.EncodeCursor(models.Keyset{CreatedAt: last.CreatedAt, ID: last.ID}), nil
}

// Redeliver makes the delivery id pending and due now, its retries
// starting over; it keeps its id, so a receiver that already has it can
// tell.
func (s *Service) Redeliver(ctx context.Context, id uuid.UUID) (*models.Delivery, error) {
	d, err := s.DeliveryStore.Redeliver(ctx, s.DB, id, s.Now())
	return d, notFound(err)
}

// notFound maps the store's ErrNotFound to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("%w", ErrNotFound)
	}
	return err
}
