package webhooks

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/actionkit/actionkit/models"
)

// Lease is how long a claimed delivery stays out of other workers' reach:
// longer than an attempt, so that only a worker that died (or stalled that
// long) has its deliveries sent again, by another.
const Lease = 30 * time.Second

// parallel is how many attempts a worker makes at once.
const parallel = 8

// payload is the body of a delivery.
type payload struct {
	Type      string      `json:"type"`
	Timestamp time.Time   `json:"timestamp"`
	Data      payloadData `json:"data"`
}

// payloadData is the event a delivery carries.
type payloadData struct {
	EventID   string          `json:"eventId"`
	OwnerType string          `json:"ownerType"`
	OwnerID   string          `json:"ownerId"`
	SessionID *string         `json:"sessionId"`
	IPAddress *string         `json:"ipAddress"`
	UserAgent *string         `json:"userAgent"`
	Data      json.RawMessage `json:"data"`
}

// body returns the JSON body of d: its event.
func body(d *models.DueDelivery) ([]byte, error) {
	p := payload{Type: d.Type, Timestamp: d.EventCreatedAt, Data: payloadData{
		EventID: d.EventID.String(), OwnerType: d.OwnerType, OwnerID: d.OwnerID.String(),
		IPAddress: d.IPAddress, UserAgent: d.UserAgent, Data: d.Data,
	}}
	if d.SessionID != nil {
		s := d.SessionID.String()
		p.Data.SessionID = &s
	}
	if len(p.Data.Data) == 0 {
		p.Data.Data = json.RawMessage("{}")
	}
	return json.Marshal(p)
}

// secrets opens the secrets that sign d at now: the current one, and the
// previous one during its grace.
func (s *Service) secrets(d *models.DueDelivery, now time.Time) ([]string, error) {
	cur, err := s.Key.Open(d.SecretCiphertext, d.SecretNonce, secretContext(d.WebhookID))
	if err != nil {
		return nil, err
	}
	out := []string{string(cur)}
	if d.PreviousExpiresAt != nil && now.Before(*d.PreviousExpiresAt) {
		prev, err := s.Key.Open(d.PreviousCiphertext, d.PreviousNonce, secretContext(d.WebhookID))
		if err != nil {
			return nil, err
		}
		out = append(out, string(prev))
	}
	return out, nil
}

// attempt sends d once and records the outcome.
func (s *Service) attempt(ctx context.Context, d *models.DueDelivery) {
	code, err := s.send(ctx, d)
	o := outcome(d.Attempts+1, code, err, s.Now())
	if rerr := s.DeliveryStore.Record(ctx, s.DB, d.ID, o); rerr != nil {
		s.Log.Error("webhook delivery outcome not recorded: it is sent again after its lease", "deliveryId", d.ID, "error", rerr)
		return
	}
	if s.Attempted != nil {
		s.Attempted(o.Status)
	}
	s.Log.Info("webhook delivery attempt", "deliveryId", d.ID, "webhookId", d.WebhookID, "type", d.Type,
		"attempt", d.Attempts+1, "status", o.Status, "statusCode", code)
}

// send signs d's body at this moment and posts it, answering the status
// code (0 when no answer came) and why the attempt failed (nil: a 2xx).
func (s *Service) send(ctx context.Context, d *models.DueDelivery) (int, error) {
	now := s.Now()
	raw, err := body(d)
	if err != nil {
		return 0, err
	}
	secrets, err := s.secrets(d, now)
	if err != nil {
		return 0, err
	}
	sig, err := Sign(d.ID.String(), now, raw, secrets...)
	if err != nil {
		return 0, err
	}
	return post(ctx, s.client, Attempt{URL: d.URL, ID: d.ID.String(), At: now, Body: raw, Signature: sig})
}

// outcome is what the attempt-th attempt, answered with code (0: none) or
// failed with err, leaves of a delivery at now.
func outcome(attempt, code int, err error, now time.Time) models.DeliveryOutcome {
	var o models.DeliveryOutcome
	if code != 0 {
		o.StatusCode = &code
	}
	if err == nil {
		o.Status, o.DeliveredAt = models.DeliveryDelivered, &now
		return o
	}
	msg := err.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	o.Error = &msg
	if wait, ok := NextAttempt(attempt); ok {
		next := now.Add(wait)
		o.Status, o.NextAttemptAt = models.DeliveryPending, &next
	} else {
		o.Status = models.DeliveryFailed
	}
	return o
}

// Poll sends the due deliveries until ctx ends, then waits for the
// attempts under way (they outlive ctx, bounded by AttemptTimeout). Every
// period, and whenever an attempt ends after a pass that found more due
// than it had room for, it claims as many due deliveries as it has free
// slots and starts an attempt for each: a receiver that hangs holds one
// slot, never the others' deliveries.
func (s *Service) Poll(ctx context.Context, period time.Duration) {
	slots := make(chan struct{}, parallel)
	freed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		var wake chan struct{}
		if s.fill(ctx, slots, freed, &wg) {
			wake = freed
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
	}
}

// fill claims up to the free slots' number of due deliveries and starts
// an attempt for each; it reports whether it filled every free slot (more
// may be due). Only Poll's goroutine takes slots, so taking one here never
// waits.
func (s *Service) fill(ctx context.Context, slots, freed chan struct{}, wg *sync.WaitGroup) bool {
	free := cap(slots) - len(slots)
	if free == 0 || ctx.Err() != nil {
		return false
	}
	now := s.Now()
	due, err := s.DeliveryStore.Claim(ctx, s.DB, now, now.Add(Lease), free)
	if err != nil {
		if ctx.Err() == nil {
			s.Log.Warn("webhook deliveries: a claim failed", "error", err)
		}
		return false
	}
	attemptCtx := context.WithoutCancel(ctx)
	for i := range due {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() {
				<-slots
				select {
				case freed <- struct{}{}:
				default:
				}
			}()
			s.attempt(attemptCtx, &due[i])
		})
	}
	return len(due) == free
}
