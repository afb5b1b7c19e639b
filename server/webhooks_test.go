package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/poll"
)

// TestWebhookDeliveriesCarryTheSignedEvent: a user's register and login
// reach the webhook subscribed to them, each signed as Standard Webhooks
// says (checked by hand), with the event in the body and the delivery's id
// as webhook-id; a webhook subscribed to another type and a disabled one
// get nothing; the console lists the deliveries as delivered.
func TestWebhookDeliveriesCarryTheSignedEvent(t *testing.T) {
	t.Parallel()
	s, a := webhookServer(t, nil, nil)
	rcv, other, off := newReceiver(t), newReceiver(t), newReceiver(t)
	id, secret := createWebhook(t, a, rcv.srv.URL+"/hook?x=1", "register", "login")
	createWebhook(t, a, other.srv.URL, "password_changed")
	offID, _ := createWebhook(t, a, off.srv.URL, "*")
	disabled := a.hookCall("/update", map[string]any{"id": offID, "enabled": false}).want(t, 200, "")
	if disabled.obj("webhook")["enabled"] != false {
		t.Fatalf("update: %s", disabled.Raw)
	}

	u := register(t, s.client(), "web")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "web").want(t, 201, "")
	got := rcv.wait(t, 2)
	var types []string
	for _, r := range got {
		verifyByHand(t, r, secret)
		if r.ContentType != "application/json" {
			t.Errorf("Content-Type %q", r.ContentType)
		}
		if sec, err := strconv.ParseInt(r.Timestamp, 10, 64); err != nil || time.Since(time.Unix(sec, 0)).Abs() > time.Minute {
			t.Errorf("webhook-timestamp %q, want the attempt's Unix time", r.Timestamp)
		}
		ev := r.event(t)
		types = append(types, fmt.Sprint(ev["type"]))
		data, _ := ev["data"].(map[string]any)
		if data["ownerType"] != "user" || data["ownerId"] != u.id || data["eventId"] == nil || data["sessionId"] == nil {
			t.Errorf("body %s", r.Body)
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(ev["timestamp"])); err != nil {
			t.Errorf("timestamp %v: %v", ev["timestamp"], err)
		}
		if strings.Contains(string(r.Body), "whsec_") || strings.Contains(string(r.Body), u.token) {
			t.Errorf("a secret or token in the body: %s", r.Body)
		}
	}
	if slices.Sort(types); !slices.Equal(types, []string{"login", "register"}) {
		t.Errorf("types %v, want login and register", types)
	}

	// The console lists them delivered, with the ids the receiver saw.
	poll.Until(t, 10*time.Second, "both deliveries recorded as delivered", func() bool {
		return len(deliveriesOf(t, a, id, "delivered")) == 2
	})
	for _, d := range deliveriesOf(t, a, id, "all") {
		if !slices.ContainsFunc(got, func(r hookRequest) bool { return r.ID == d["id"] }) || d["attempts"] != 1.0 ||
			d["lastStatusCode"] != 200.0 || d["deliveredAt"] == nil || d["nextAttemptAt"] != nil {
			t.Errorf("delivery %v", d)
		}
		if v, err := uuid.Parse(fmt.Sprint(d["id"])); err != nil || v.Version() != 7 {
			t.Errorf("delivery id %v is not a UUID v7", d["id"])
		}
	}
	if n := len(other.requests()) + len(off.requests()); n != 0 {
		t.Errorf("the unsubscribed and the disabled webhooks got %d requests", n)
	}
	var rows int
	if err := s.db().Get(&rows, `SELECT count(*) FROM webhook_deliveries`); err != nil || rows != 2 {
		t.Errorf("delivery rows: %d, %v; want 2 (none for the others)", rows, err)
	}
}

// TestAChangeThatRollsBackSendsNothing: a password change whose
// transaction fails at its commit, after its event and the event's
// delivery were written, leaves no delivery and sends nothing; the next
// change is delivered.
func TestAChangeThatRollsBackSendsNothing(t *testing.T) {
	t.Parallel()
	s, a := webhookServer(t, nil, nil)
	rcv := newReceiver(t)
	id, _ := createWebhook(t, a, rcv.srv.URL, "password_changed", "logoutall")
	u := register(t, s.client(), "app")
	db := s.db()
	// A deferred constraint trigger fails the commit of the transaction
	// that records a password change: every statement of it ran.
	sqlExec(t, db, `CREATE FUNCTION fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'injected commit failure'; END; $$`)
	sqlExec(t, db, `CREATE CONSTRAINT TRIGGER fail_password_change AFTER INSERT ON security_events
		DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.type = 'password_changed') EXECUTE FUNCTION fail_commit()`)
	r := u.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword,
		"newPassword": "Another-Horse-43-battery"}, u.auth()...)
	if r.Status != 500 {
		t.Fatalf("the failing change answered %d %s, want 500", r.Status, r.Raw)
	}
	if eventsOf(t, db, u.id, "password_changed") != 0 {
		t.Fatal("the failed change left its event")
	}
	sqlExec(t, db, `DROP TRIGGER fail_password_change ON security_events`)

	// The next change is delivered: the worker has run since.
	u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	got := rcv.wait(t, 1)
	poll.Until(t, 10*time.Second, "the logoutall delivered", func() bool { return len(deliveriesOf(t, a, id, "delivered")) == 1 })
	if len(got) != 1 || got[0].event(t)["type"] != "logoutall" {
		t.Fatalf("got %d requests, the first %s; want only logoutall", len(got), got[0].Body)
	}
	if all := deliveriesOf(t, a, id, "all"); len(all) != 1 {
		t.Errorf("deliveries %v, want only the logoutall's", all)
	}
}

// TestFailedDeliveriesAreRetriedWithTheSameID: a receiver that answers
// 500 gets the delivery again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
// and 10 h (the test moves the clock), each attempt with the same
// webhook-id and a fresh timestamp and signature; then the delivery is
// failed, and a redelivery to the mended receiver delivers it, same id.
func TestFailedDeliveriesAreRetriedWithTheSameID(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s, a := webhookServer(t, clock.Now, nil, "ACCESS_TOKEN_EXPIRES_IN=100h")
	rcv := newReceiver(t)
	rcv.answer(500)
	id, secret := createWebhook(t, a, rcv.srv.URL, "register")
	u := register(t, s.client(), "web")
	waits := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	first := rcv.wait(t, 1)[0]
	for i, wait := range waits {
		var d map[string]any
		poll.Until(t, 10*time.Second, fmt.Sprintf("attempt %d recorded", i+1), func() bool {
			list := deliveriesOf(t, a, id, "pending")
			if len(list) == 1 && list[0]["attempts"] == float64(i+1) {
				d = list[0]
				return true
			}
			return false
		})
		want := clock.Now().Add(wait).Format(time.RFC3339Nano)
		if d["nextAttemptAt"] != want || d["lastStatusCode"] != 500.0 || d["lastError"] != "HTTP 500" {
			t.Fatalf("after attempt %d: %v; want the next at %s", i+1, d, want)
		}
		clock.Advance(wait)
		got := rcv.wait(t, i+2)
		r := got[i+1]
		verifyByHand(t, r, secret)
		if r.ID != first.ID || r.ID != d["id"] || string(r.Body) != string(first.Body) ||
			r.Timestamp != fmt.Sprint(clock.Now().Unix()) {
			t.Fatalf("attempt %d: id %s timestamp %s, want id %s at %d and the same body", i+2, r.ID, r.Timestamp, first.ID, clock.Now().Unix())
		}
	}
	var failed []map[string]any
	poll.Until(t, 10*time.Second, "the delivery failed for good", func() bool {
		failed = deliveriesOf(t, a, id, "failed")
		return len(failed) == 1
	})
	if failed[0]["attempts"] != 8.0 || failed[0]["nextAttemptAt"] != nil {
		t.Fatalf("failed delivery %v", failed[0])
	}
	if got := rcv.requests(); len(got) != 8 {
		t.Fatalf("%d requests, want 8", len(got))
	}

	rcv.answer(204)
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": strongPassword}, a.auth()...).want(t, 200, "")
	a.hookCall("/redeliver", map[string]any{"deliveryId": failed[0]["id"]}).want(t, 200, "")
	r := rcv.wait(t, 9)[8]
	verifyByHand(t, r, secret)
	poll.Until(t, 10*time.Second, "the redelivery recorded", func() bool { return len(deliveriesOf(t, a, id, "delivered")) == 1 })
	if r.ID != first.ID || r.event(t)["data"].(map[string]any)["ownerId"] != u.id {
		t.Errorf("redelivery id %s, want %s", r.ID, first.ID)
	}
	c := s.client()
	poll.Until(t, 10*time.Second, "the attempts counted by outcome", func() bool {
		return metricValue(t, c, `actionkit_webhook_attempts_total{outcome="pending"}`) == 7 &&
			metricValue(t, c, `actionkit_webhook_attempts_total{outcome="failed"}`) == 1 &&
			metricValue(t, c, `actionkit_webhook_attempts_total{outcome="delivered"}`) == 1
	})
}

// TestRotatedSecretSignsBesideTheOldForADay: after rotatesecret each
// delivery carries the new secret's signature and the old one's, for 24 h;
// then only the new one's.
func TestRotatedSecretSignsBesideTheOldForADay(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s, a := webhookServer(t, clock.Now, nil, "REAUTH_MAX_AGE=48h", "ACCESS_TOKEN_EXPIRES_IN=48h")
	rcv := newReceiver(t)
	id, old := createWebhook(t, a, rcv.srv.URL, "register")
	r := a.hookCall("/rotatesecret", map[string]any{"id": id}).want(t, 200, "")
	fresh := r.str("secret")
	if fresh == old || !strings.HasPrefix(fresh, "whsec_") || r.obj("webhook")["id"] != id {
		t.Fatalf("rotatesecret: %s", r.Raw)
	}
	register(t, s.client(), "web")
	verifyByHand(t, rcv.wait(t, 1)[0], fresh, old)
	clock.Advance(24*time.Hour + time.Second)
	register(t, s.client(), "web")
	verifyByHand(t, rcv.wait(t, 2)[1], fresh)
}

// TestWebhookURLsMustBePublic: create and update refuse, with fields.url,
// an http URL, and a host on a loopback, private, link-local or metadata
// address, written as an address or resolving to one; a host listed in
// OAUTH_INSECURE_HOSTS may be http and on loopback.
func TestWebhookURLsMustBePublic(t *testing.T) {
	t.Parallel()
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "public.example.com":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "private.example.com":
			return []netip.Addr{netip.MustParseAddr("10.0.0.5")}, nil
		case "mixed.example.com":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	_, a := webhookServer(t, nil, lookup, "OAUTH_INSECURE_HOSTS=127.0.0.1:9")
	for _, url := range []string{
		"http://public.example.com/hook", "https://private.example.com/hook", "https://mixed.example.com/hook",
		"https://127.0.0.1/hook", "https://[::1]/hook", "https://169.254.169.254/latest", "https://10.1.1.1/",
		"https://[::ffff:192.168.0.1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://100.64.0.1/", "https://0.0.0.0/",
		"https://unknown.example.com/", "not a url", "http://127.0.0.2/",
	} {
		r := a.hookCall("/create", map[string]any{"url": url, "events": []string{"*"}}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if f, _ := r.Body["fields"].(map[string]any); f["url"] == nil {
			t.Errorf("%s: %s, want fields.url", url, r.Raw)
		}
	}
	for _, events := range [][]string{{}, {"nope"}, {"*", "login"}} {
		r := a.hookCall("/create", map[string]any{"url": "https://public.example.com/", "events": events}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if f, _ := r.Body["fields"].(map[string]any); f["events"] == nil {
			t.Errorf("events %v: %s, want fields.events", events, r.Raw)
		}
	}
	id, _ := createWebhook(t, a, "https://public.example.com/hook", "login")
	createWebhook(t, a, "http://127.0.0.1:9/hook", "login")
	a.hookCall("/update", map[string]any{"id": id, "url": "https://private.example.com/"}).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	list := a.hookCall("", nil).want(t, 200, "")
	if hooks, _ := list.Body["webhooks"].([]any); len(hooks) != 2 || strings.Contains(list.Raw, "whsec_") {
		t.Errorf("list: %s", list.Raw)
	}
}

// TestADNSAnswerThatChangesIsRefusedAtDelivery: a host that resolved to a
// public address when its webhook was made and resolves to loopback when a
// delivery is sent is refused when the connection is made: the receiver
// listening there gets nothing and the delivery records why.
func TestADNSAnswerThatChangesIsRefusedAtDelivery(t *testing.T) {
	t.Parallel()
	var rebound atomic.Bool
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host != "rebind.example.com" {
			return nil, fmt.Errorf("no such host %s", host)
		}
		if rebound.Load() {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	s, a := webhookServer(t, nil, lookup)
	rcv := newReceiver(t)
	port := rcv.srv.URL[strings.LastIndex(rcv.srv.URL, ":")+1:]
	id, _ := createWebhook(t, a, "https://rebind.example.com:"+port+"/hook", "register")
	rebound.Store(true)
	register(t, s.client(), "web")
	var d map[string]any
	poll.Until(t, 10*time.Second, "the attempt recorded", func() bool {
		list := deliveriesOf(t, a, id, "pending")
		if len(list) == 1 && list[0]["attempts"] == 1.0 {
			d = list[0]
			return true
		}
		return false
	})
	if msg := fmt.Sprint(d["lastError"]); !strings.Contains(msg, "refused address") || !strings.Contains(msg, "127.0.0.1") || d["lastStatusCode"] != nil {
		t.Errorf("delivery %v, want refused for 127.0.0.1", d)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Errorf("the receiver on loopback got %d requests", n)
	}
}

// TestWebhookActionsAreForRecentAdmins: users cannot call them; unknown ids
// are 404 ADMIN_WEBHOOK_NOT_FOUND; the changes need a recent
// authentication of the admin, the reads do not.
func TestWebhookActionsAreForRecentAdmins(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	s, a := webhookServer(t, clock.Now, nil, "REAUTH_MAX_AGE=5m")
	id, _ := createWebhook(t, a, "http://127.0.0.1:9/hook", "login")
	u := register(t, s.client(), "web")
	u.c.call(http.MethodPost, "/v1/admins/webhooks", map[string]any{}, u.auth()...).want(t, 401, "UNAUTHORIZED")
	unknown := uuid.Must(uuid.NewV7()).String()
	for path, args := range map[string]map[string]any{
		"/update": {"id": unknown, "enabled": false}, "/rotatesecret": {"id": unknown}, "/delete": {"id": unknown},
		"/deliveries": {"id": unknown}, "/redeliver": {"deliveryId": unknown},
	} {
		a.hookCall(path, args).want(t, 404, "ADMIN_WEBHOOK_NOT_FOUND")
	}
	clock.Advance(6 * time.Minute)
	a.hookCall("", nil).want(t, 200, "")
	a.hookCall("/deliveries", map[string]any{"id": id}).want(t, 200, "")
	for path, args := range map[string]map[string]any{
		"/create": {"url": "http://127.0.0.1:9/", "events": []string{"*"}}, "/update": {"id": id, "enabled": false},
		"/rotatesecret": {"id": id}, "/delete": {"id": id}, "/redeliver": {"deliveryId": unknown},
	} {
		a.hookCall(path, args).want(t, 403, "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED")
	}
	a.c.call(http.MethodPost, "/v1/admins/reauthenticate", map[string]any{"password": strongPassword}, a.auth()...).want(t, 200, "")
	a.hookCall("/delete", map[string]any{"id": id}).want(t, 200, "")
	a.hookCall("/delete", map[string]any{"id": id}).want(t, 404, "ADMIN_WEBHOOK_NOT_FOUND")
}
