package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookRequest is one request a receiver got.
type hookRequest struct {
	ID, Timestamp, Signature, ContentType string
	Body                                  []byte
}

// event decodes the request's body.
func (r hookRequest) event(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("delivery body is not JSON: %q", r.Body)
	}
	return m
}

// receiver is a webhook endpoint on loopback: it records every request and
// answers with status (200 unless the test changes it).
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []hookRequest
	code int
	// arrived gets a value per request, for waiting without sleeping.
	arrived chan struct{}
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{code: 200, arrived: make(chan struct{}, 1000)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, hookRequest{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
			Signature: req.Header.Get("webhook-signature"), ContentType: req.Header.Get("Content-Type"), Body: body})
		code := r.code
		r.mu.Unlock()
		w.WriteHeader(code)
		r.arrived <- struct{}{}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) answer(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.code = code
}

func (r *receiver) requests() []hookRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookRequest(nil), r.got...)
}

// wait returns once the receiver has had n requests in all, failing the
// test after 20 s.
func (r *receiver) wait(t testing.TB, n int) []hookRequest {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if got := r.requests(); len(got) >= n {
			return got
		}
		select {
		case <-r.arrived:
		case <-deadline:
			t.Fatalf("the receiver got %d requests within 20s, want %d", len(r.requests()), n)
		}
	}
}

// verifyByHand checks a delivery's signature as a receiver without a
// library would: every "v1,<base64>" of the header that is the HMAC-SHA256
// of "<id>.<timestamp>.<body>" under one of secrets, in order. It returns
// how many signatures matched, and fails unless each secret matched one.
func verifyByHand(t testing.TB, r hookRequest, secrets ...string) {
	t.Helper()
	sigs := strings.Split(r.Signature, " ")
	if len(sigs) != len(secrets) {
		t.Fatalf("webhook-signature %q has %d signatures, want %d", r.Signature, len(sigs), len(secrets))
	}
	for i, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil || !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q is not whsec_ and base64", secret)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(r.ID + "." + r.Timestamp + "."))
		mac.Write(r.Body)
		if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); sigs[i] != want {
			t.Fatalf("signature %d: got %q, want %q (secret %d)", i, sigs[i], want, i)
		}
	}
}

// webhookServer starts a server (all roles) on now, whose workers look for
// due deliveries every 50 ms, whose webhooks may reach loopback
// (OAUTH_INSECURE_HOSTS=127.0.0.1) and whose resolver is lookup (nil: the
// system's); it returns it with an admin logged in.
func webhookServer(t *testing.T, now func() time.Time, lookup func(context.Context, string) ([]netip.Addr, error), overrides ...string) (*testServer, *adminSession) {
	t.Helper()
	env := testEnv(t, append([]string{"OAUTH_INSECURE_HOSTS=127.0.0.1"}, overrides...)...)
	s := startServerWith(t, env, func(e *environment) {
		e.now, e.webhookPoll, e.webhookLookup = now, 50*time.Millisecond, lookup
	})
	email := "hooks" + strconv.FormatInt(emailSeq.Add(1), 10) + "@example.com"
	createAdmin(t, env, email)
	a, _ := adminLogin(t, s, email, "app")
	return s, a
}

// hookCall calls the admin webhook action path ("" for the list).
func (a *adminSession) hookCall(path string, args map[string]any) *apiResponse {
	if args == nil {
		args = map[string]any{}
	}
	return a.c.call(http.MethodPost, "/v1/admins/webhooks"+path, args, a.auth()...)
}

// createWebhook makes a webhook of url for events and returns its id and
// secret.
func createWebhook(t testing.TB, a *adminSession, url string, events ...string) (id, secret string) {
	t.Helper()
	r := a.hookCall("/create", map[string]any{"url": url, "events": events, "description": "test"}).want(t, 201, "")
	return fmt.Sprint(r.obj("webhook")["id"]), r.str("secret")
}

// deliveriesOf lists the deliveries of webhook id (newest first).
func deliveriesOf(t testing.TB, a *adminSession, id, status string) []map[string]any {
	t.Helper()
	r := a.hookCall("/deliveries", map[string]any{"id": id, "status": status}).want(t, 200, "")
	list, _ := r.Body["deliveries"].([]any)
	out := make([]map[string]any, len(list))
	for i, d := range list {
		out[i] = d.(map[string]any)
	}
	return out
}
