package models_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// insertWebhook stores a webhook of events (enabled unless off).
func insertWebhook(t testing.TB, db models.DB, store models.WebhookStore, off bool, events ...string) uuid.UUID {
	t.Helper()
	w, err := store.Insert(testCtx(t), db, &models.Webhook{ID: newID(t), URL: "https://example.com/hook", Events: events,
		SecretCiphertext: []byte("c"), SecretNonce: []byte("n")}, testNow())
	if err != nil {
		t.Fatal(err)
	}
	if off {
		no := false
		if _, err := store.Update(testCtx(t), db, w.ID, models.WebhookChange{Enabled: &no}, testNow()); err != nil {
			t.Fatal(err)
		}
	}
	return w.ID
}

// TestAnEventQueuesOneDeliveryPerSubscribedWebhook: the statement that
// stores an event stores a pending delivery, due at once, for each enabled
// webhook of its type or of "*", and none for the others; rolled back, it
// leaves neither.
func TestAnEventQueuesOneDeliveryPerSubscribedWebhook(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, hooks, events := testCtx(t), models.WebhookStore{}.Prepared(db), models.EventStore{}.Prepared(db)
	login := insertWebhook(t, db, hooks, false, models.EventLogin, models.EventLogout)
	all := insertWebhook(t, db, hooks, false, "*")
	insertWebhook(t, db, hooks, false, models.EventRegister)
	insertWebhook(t, db, hooks, true, models.EventLogin)

	ev := &models.SecurityEvent{OwnerType: "user", OwnerID: newID(t), Type: models.EventLogin, CreatedAt: testNow()}
	if err := events.Insert(ctx, db, ev); err != nil {
		t.Fatal(err)
	}
	var rows []models.Delivery
	if err := db.SelectContext(ctx, &rows, `SELECT id, webhook_id, event_id, type, status, attempts, last_status_code,
		last_error, next_attempt_at, created_at, delivered_at FROM webhook_deliveries ORDER BY webhook_id`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].WebhookID != login || rows[1].WebhookID != all {
		t.Fatalf("deliveries %+v, want one for the login webhook and one for *", rows)
	}
	for _, d := range rows {
		if d.EventID != ev.ID || d.Type != models.EventLogin || d.Status != models.DeliveryPending || d.Attempts != 0 ||
			!d.CreatedAt.Equal(ev.CreatedAt) || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(ev.CreatedAt) ||
			d.ID.Version() != 7 || time.Unix(d.ID.Time().UnixTime()).Sub(ev.CreatedAt).Abs() > time.Millisecond {
			t.Errorf("delivery %+v of event %s at %v", d, ev.ID, ev.CreatedAt)
		}
	}

	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.Insert(ctx, tx, &models.SecurityEvent{OwnerType: "user", OwnerID: newID(t), Type: models.EventLogout}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, tx, `SELECT count(*) FROM webhook_deliveries`); n != 4 {
		t.Fatalf("inside the transaction: %d deliveries, want 4", n)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM webhook_deliveries`); n != 2 {
		t.Fatalf("after the rollback: %d deliveries, want 2", n)
	}
}

// TestClaimLeasesDueDeliveries: a claim takes the due deliveries of
// enabled webhooks, at most its limit; a second claim at the same time
// skips them until their lease ends; a recorded outcome ends them.
func TestClaimLeasesDueDeliveries(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, hooks, events, store := testCtx(t), models.WebhookStore{}.Prepared(db), models.EventStore{}.Prepared(db), models.DeliveryStore{}.Prepared(db)
	insertWebhook(t, db, hooks, false, "*")
	now := testNow()
	for range 3 {
		if err := events.Insert(ctx, db, &models.SecurityEvent{OwnerType: "user", OwnerID: newID(t), Type: models.EventLogin, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	if due, err := store.Claim(ctx, db, now.Add(-time.Second), now.Add(time.Minute), 10); err != nil || len(due) != 0 {
		t.Fatalf("before they are due: %d, %v", len(due), err)
	}
	lease := now.Add(30 * time.Second)
	first, err := store.Claim(ctx, db, now, lease, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("first claim: %d, %v; want 2", len(first), err)
	}
	if first[0].URL != "https://example.com/hook" || first[0].OwnerType != "user" || first[0].EventCreatedAt.IsZero() {
		t.Errorf("claimed %+v without its webhook and event", first[0])
	}
	second, err := store.Claim(ctx, db, now, lease, 10)
	if err != nil || len(second) != 1 || second[0].ID == first[0].ID || second[0].ID == first[1].ID {
		t.Fatalf("second claim: %d, %v; want the third only", len(second), err)
	}
	delivered := now.Add(time.Second)
	if err := store.Record(ctx, db, first[0].ID, models.DeliveryOutcome{Status: models.DeliveryDelivered, DeliveredAt: &delivered}); err != nil {
		t.Fatal(err)
	}
	again, err := store.Claim(ctx, db, lease, lease.Add(time.Minute), 10)
	if err != nil || len(again) != 2 {
		t.Fatalf("after the lease: %d, %v; want the two not delivered", len(again), err)
	}
	for _, d := range again {
		if d.ID == first[0].ID {
			t.Error("a delivered delivery was claimed again")
		}
	}
}

// TestPurgeKeepsEventsWithPendingDeliveries: the purge of old security
// events passes over an event whose webhook delivery is still pending (its
// retries would be lost with it), and takes it once the delivery ended.
func TestPurgeKeepsEventsWithPendingDeliveries(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, hooks, events := testCtx(t), models.WebhookStore{}.Prepared(db), models.EventStore{}.Prepared(db)
	insertWebhook(t, db, hooks, false, models.EventLogin)
	for _, typ := range []string{models.EventLogin, models.EventLogout} {
		ev := &models.SecurityEvent{OwnerType: "user", OwnerID: newID(t), Type: typ, CreatedAt: testNow()}
		if err := events.Insert(ctx, db, ev); err != nil {
			t.Fatal(err)
		}
	}
	later := testNow().Add(time.Hour)
	if n, err := events.Purge(ctx, db, later, 10); err != nil || n != 1 {
		t.Errorf("Purge with a pending delivery: %d, %v, want 1 (the logout only)", n, err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'failed'`); err != nil {
		t.Fatal(err)
	}
	if n, err := events.Purge(ctx, db, later, 10); err != nil || n != 1 {
		t.Errorf("Purge once the delivery failed: %d, %v, want 1", n, err)
	}
	if n := count(t, db, `SELECT count(*) FROM webhook_deliveries`); n != 0 {
		t.Errorf("%d deliveries left after their event was purged, want 0", n)
	}
}
