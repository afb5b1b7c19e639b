package main

import (
	"testing"
	"time"
)

// TestAHangingReceiverHoldsBackNoOther: while a receiver holds an attempt
// without answering (up to the 10 s timeout), the deliveries of other
// webhooks, made after it, are sent at once.
func TestAHangingReceiverHoldsBackNoOther(t *testing.T) {
	t.Parallel()
	s, a := webhookServer(t, nil, nil)
	slow, fast := newHoldingReceiver(t), newReceiver(t)
	createWebhook(t, a, slow.srv.URL, "register")
	createWebhook(t, a, fast.srv.URL, "register")
	register(t, s.client(), "web")
	select {
	case <-slow.arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the hanging receiver got no request within 20s")
	}
	fast.wait(t, 1)
	start := time.Now()
	register(t, s.client(), "web")
	fast.wait(t, 2)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the second delivery took %v: it waited for the hanging attempt", took)
	}
	if n := len(slow.seen()); n > 2 {
		t.Errorf("the hanging receiver got %d requests, want at most 2", n)
	}
}
