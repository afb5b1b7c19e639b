package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/webhooks"
)

// TestAKilledWorkerLosesNoDelivery: deliveries written while no worker
// runs wait in their table; a worker process killed while it holds them
// all in attempts (the receiver has them and has not answered) loses none:
// another worker sends each again, with the same webhook-id, once the
// lease of the dead one ends, and each is delivered.
func TestAKilledWorkerLosesNoDelivery(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "OAUTH_INSECURE_HOSTS=127.0.0.1", "LOG_LEVEL=info")
	rcv := newHoldingReceiver(t)
	seen := rcv.seen

	api := startProcess(t, env, "api").asServer(t)
	createAdmin(t, env, "crash@example.com")
	a, _ := adminLogin(t, api, "crash@example.com", "app")
	hook, _ := createWebhook(t, a, rcv.srv.URL+"/hook", "register")
	const n = 4
	for range n {
		register(t, api.client(), "web")
	}
	db, err := models.Open(t.Context(), env["DATABASE_URL"], 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pending := func() int {
		var c int
		if err := db.Get(&c, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if p := pending(); p != n {
		t.Fatalf("%d pending deliveries with no worker running, want %d", p, n)
	}

	doomed := startProcess(t, env, "worker")
	for range n {
		select {
		case <-rcv.arrived:
		case <-time.After(30 * time.Second):
			t.Fatalf("the worker sent %d deliveries within 30s, want %d:\n%s", len(seen()), n, doomed.logs.String())
		}
	}
	held := seen()
	doomed.kill(t)
	killed := time.Now()
	rcv.answerNow()
	if p := pending(); p != n {
		t.Fatalf("%d pending deliveries after the kill, want %d", p, n)
	}

	startProcess(t, env, "worker")
	poll.Until(t, webhooks.Lease+30*time.Second, "every delivery delivered by the surviving worker", func() bool {
		return len(deliveriesOf(t, a, hook, "delivered")) == n
	})
	t.Logf("the killed worker's deliveries were delivered %v after the kill", time.Since(killed).Round(100*time.Millisecond))
	again := seen()[n:]
	slices.Sort(held)
	slices.Sort(again)
	if !slices.Equal(held, again) || len(slices.Compact(slices.Clone(held))) != n {
		t.Errorf("webhook-ids before the kill %v, after %v; want the same %d", held, again, n)
	}
}

// holdingReceiver records each request's webhook-id and holds its answer
// until the test ends, until answerNow.
type holdingReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	ids     []string
	hold    bool
	arrived chan struct{}
}

func newHoldingReceiver(t *testing.T) *holdingReceiver {
	r := &holdingReceiver{hold: true, arrived: make(chan struct{}, 100)}
	release := make(chan struct{})
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.ids = append(r.ids, req.Header.Get("webhook-id"))
		held := r.hold
		r.mu.Unlock()
		r.arrived <- struct{}{}
		if held {
			<-release // the worker is killed meanwhile
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() { close(release); r.srv.Close() })
	return r
}

// answerNow answers the requests that come from now on at once.
func (r *holdingReceiver) answerNow() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = false
}

// seen returns the webhook-ids of every request so far.
func (r *holdingReceiver) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}
