package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// TestBrowserAdminWebhooks: in the admin console an admin adds a webhook
// and sees its secret once; a user's registration reaches a receiver that
// answers 500 and the console shows the delivery pending with that
// status; sending it again, in an admin session older than
// REAUTH_MAX_AGE, asks for the password first, and the console then shows
// it delivered. Every request the receiver got carries the same
// webhook-id and verifies with the secret the console showed.
func TestBrowserAdminWebhooks(t *testing.T) {
	const maxAge = 2 * time.Minute
	clock := &testclock.Offset{}
	env := testEnv(t, "REAUTH_MAX_AGE="+maxAge.String(), "OAUTH_INSECURE_HOSTS=127.0.0.1")
	s := startServerWith(t, env, func(e *environment) { e.now, e.webhookPoll = clock.Now, 100*time.Millisecond })
	createAdmin(t, env, "hooks-console@example.com")
	rcv := newReceiver(t)
	rcv.answer(500)
	var userID string
	res := runBrowser(t, s, "webhooks", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		switch m.Name {
		case "created":
			userID = register(t, s.client(), "web").id
			return map[string]any{"userId": userID}
		case "age":
			rcv.answer(200)
			clock.Advance(maxAge + time.Second)
		}
		return map[string]any{"adminEmail": "hooks-console@example.com", "adminPassword": strongPassword, "receiverURL": rcv.srv.URL + "/crm"}
	}})["webhooks"]

	secret := res.Str("secret")
	pending, _ := res.Data["pending"].([]any)
	delivered, _ := res.Data["delivered"].([]any)
	if len(pending) != 1 || len(delivered) != 1 || !strings.HasPrefix(secret, "whsec_") || !strings.Contains(res.Str("listed"), "CRM sync") {
		t.Fatalf("the console: %v", res.Data)
	}
	p, d := pending[0].(map[string]any), delivered[0].(map[string]any)
	if p["code"] != "500" || d["status"] != "delivered" || d["code"] != "200" || p["id"] != d["id"] {
		t.Errorf("pending %v, then %v", p, d)
	}
	got := rcv.requests()
	if len(got) < 2 {
		t.Fatalf("the receiver got %d requests, want the failed one and the one delivered", len(got))
	}
	for _, r := range got {
		verifyByHand(t, r, secret)
		if r.ID != fmt.Sprint(d["id"]) || r.event(t)["data"].(map[string]any)["ownerId"] != userID {
			t.Errorf("request %s of %s, want delivery %v of the user %s", r.ID, r.Body, d["id"], userID)
		}
	}
}
