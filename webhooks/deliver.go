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

// claimBatch is how many deliveries one pass claims; parallel how many of
// them are sent at once.
const (
	claimBatch = 32
	parallel   = 8
)

// payload is the body of a delivery.
type payload struct {
	Type      string      `json:"type"`
	Timestamp time.Time   `json:"timestamp"`
	Data      payloadData `json:"data"`
}

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

// RunDue sends the deliveries due now, a batch at a time, until none is
// left, and returns how many attempts it made.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		now := s.Now()
		due, err := s.DeliveryStore.Claim(ctx, s.DB, now, now.Add(Lease), claimBatch)
		if err != nil || len(due) == 0 {
			return total, err
		}
		s.sendAll(ctx, due)
		total += len(due)
		if len(due) < claimBatch {
			break
		}
	}
	return total, nil
}

// sendAll attempts each of due, parallel at a time, and records each
// outcome. Attempts outlive ctx (a shutdown waits for them), bounded by
// AttemptTimeout.
func (s *Service) sendAll(ctx context.Context, due []models.DueDelivery) {
	ctx = context.WithoutCancel(ctx)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range due {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s.attempt(ctx, &due[i])
		})
	}
	wg.Wait()
}

// attempt sends d once and records the outcome.
func (s *Service) attempt(ctx context.Context, d *models.DueDelivery) {
	s.clientOnce.Do(func() { s.client = newClient(s.Guard) })
	now := s.Now()
	code, err := 0, error(nil)
	raw, err := body(d)
	if err == nil {
		var secrets []string
		if secrets, err = s.secrets(d, now); err == nil {
			var sig string
			if sig, err = Sign(d.ID.String(), now, raw, secrets...); err == nil {
				code, err = post(ctx, s.client, Attempt{URL: d.URL, ID: d.ID.String(), At: now, Body: raw, Signature: sig})
			}
		}
	}
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

// Poll runs RunDue every period until ctx ends, waiting for the attempts
// under way before it returns.
func (s *Service) Poll(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if _, err := s.RunDue(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn("webhook deliveries: a pass failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
