package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/webhooktest"
)

// TestDeliveriesVerifyWithStandardWebhooks: a receiver written with npm
// standardwebhooks 1.1.1 verifies every delivery of a register and a
// login, signed with one secret and, after a rotation, with two; it tells
// a redelivery (the same webhook-id) from a new one; and it refuses the
// deliveries of a webhook whose secret it does not have, so the check is
// real.
func TestDeliveriesVerifyWithStandardWebhooks(t *testing.T) {
	t.Parallel()
	node := webhooktest.Start(t)
	s, a := webhookServer(t, nil, nil)
	id, secret := createWebhook(t, a, node.URL+"/hook", "register", "login", "logout")
	node.SetSecret(t, secret)

	u := register(t, s.client(), "web")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}, "X-Client", "web").want(t, 201, "")
	var types []string
	for range 2 {
		l := node.Next(t)
		if l.Error != "" || l.OwnerID != u.id || l.Duplicate {
			t.Fatalf("receiver: %+v", l)
		}
		types = append(types, l.Type)
	}
	if slices.Sort(types); !slices.Equal(types, []string{"login", "register"}) {
		t.Fatalf("types %v", types)
	}

	poll.Until(t, 10*time.Second, "both delivered", func() bool { return len(deliveriesOf(t, a, id, "delivered")) == 2 })
	first := deliveriesOf(t, a, id, "delivered")[0]
	a.hookCall("/redeliver", map[string]any{"deliveryId": first["id"]}).want(t, 200, "")
	if l := node.Next(t); l.ID != first["id"] || !l.Duplicate || l.Error != "" {
		t.Fatalf("redelivery: %+v, want a verified duplicate of %v", l, first["id"])
	}

	// After a rotation the receiver still has only the old secret: the
	// second signature, made with it for a day, verifies.
	a.hookCall("/rotatesecret", map[string]any{"id": id}).want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/users/logout", nil, u.auth()...).want(t, 200, "")
	if l := node.Next(t); l.Type != "logout" || l.Error != "" {
		t.Fatalf("after the rotation: %+v", l)
	}

	_, _ = createWebhook(t, a, node.URL+"/other", "register")
	other := register(t, s.client(), "web")
	for {
		l := node.Next(t)
		if l.Error != "" {
			break // the other webhook's delivery, signed with a secret the receiver lacks
		}
		if l.OwnerID != other.id || l.Type != "register" {
			t.Fatalf("unexpected delivery %+v", l)
		}
	}
}
