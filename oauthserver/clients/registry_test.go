package clients

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/webhooks"
)

// docServer serves client ID metadata documents on loopback: handler
// answers, and hits counts the requests.
type docServer struct {
	srv  *httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	h    http.HandlerFunc
}

func newDocServer(t *testing.T) *docServer {
	d := &docServer{}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		d.mu.Lock()
		h := d.h
		d.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *docServer) serve(h http.HandlerFunc) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.h = h
}

// document answers doc as JSON with cacheControl.
func document(doc, cacheControl string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		_, _ = w.Write([]byte(doc))
	}
}

// goodDoc is a valid document for id.
func goodDoc(id string) string {
	return fmt.Sprintf(`{"client_id":%q,"client_name":"Agent","redirect_uris":["http://127.0.0.1/cb"],"scope":"openid","extra":[1,2]}`, id)
}

// countingBudget is a Budget that records the addresses it is spent for
// and refuses once it is spent max times.
type countingBudget struct {
	mu  sync.Mutex
	ips []string
	max int
}

func (b *countingBudget) Spend(_ context.Context, ip string) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ips = append(b.ips, ip)
	return 7 * time.Second, len(b.ips) <= b.max
}

type registryEnv struct {
	db     *sqlx.DB
	pool   *redis.Pool
	clock  *testclock.Clock
	budget *countingBudget
	reg    *Registry
	docs   *docServer
}

// newRegistryEnv returns a Registry on a fresh database and Redis
// namespace whose guard lets it reach loopback (OAUTH_INSECURE_HOSTS
// 127.0.0.1) and resolves names with lookup (nil: the system's).
func newRegistryEnv(t *testing.T, lookup func(context.Context, string) ([]netip.Addr, error), timeout time.Duration) *registryEnv {
	t.Helper()
	_, prefix, pool := redistest.New(t)
	e := &registryEnv{db: pgtest.New(t), pool: pool, clock: testclock.At(time.Now().UTC().Truncate(time.Microsecond)),
		budget: &countingBudget{max: 1000}, docs: newDocServer(t)}
	e.reg = NewRegistry(RegistryConfig{DB: e.db, Now: e.clock.Now, MetadataDocuments: true,
		Guard: &webhooks.Guard{Insecure: []string{"127.0.0.1"}, Lookup: lookup}, Redis: pool, Prefix: prefix + "cimd:",
		Budget: e.budget, Timeout: timeout})
	return e
}

func (e *registryEnv) url(path string) string { return e.docs.srv.URL + path }

func wantNotFound(t *testing.T, what string, c *models.OAuthClient, err error) {
	t.Helper()
	if !errors.Is(err, models.ErrNotFound) || c != nil {
		t.Fatalf("%s: %v %+v, want an error wrapping models.ErrNotFound", what, err, c)
	}
}

// TestRegistryResolvesAndCachesADocument: a document served on an
// OAUTH_INSECURE_HOSTS host is a public metadata client, kept in its row
// for its Cache-Control max-age (at least 5 min), fetched again once
// expired; the fetch spends the client address's budget, a cached answer
// none; an admin-disabled client stays disabled and is not fetched.
func TestRegistryResolvesAndCachesADocument(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, nil, 0)
	id := e.url("/client.json")
	e.docs.serve(document(goodDoc(id), "public, max-age=600"))
	ctx := WithClientIP(t.Context(), "203.0.113.9")
	c, err := e.reg.Client(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source != models.OAuthClientMetadata || !c.Public() || c.Name != "Agent" || c.ClientID != id || *c.Scope != "openid" ||
		c.MetadataExpiresAt == nil || !c.MetadataExpiresAt.Equal(e.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("client %+v", c)
	}
	e.clock.Advance(9 * time.Minute)
	if _, err := e.reg.Client(ctx, id); err != nil || e.docs.hits.Load() != 1 {
		t.Fatalf("within max-age: %v, %d fetches, want 1", err, e.docs.hits.Load())
	}
	e.docs.serve(document(strings.Replace(goodDoc(id), `"Agent"`, `"Agent 2"`, 1), ""))
	e.clock.Advance(2 * time.Minute)
	if c, err = e.reg.Client(ctx, id); err != nil || c.Name != "Agent 2" || e.docs.hits.Load() != 2 {
		t.Fatalf("after expiry: %v %+v, %d fetches", err, c, e.docs.hits.Load())
	}
	if got := e.budget.ips; len(got) != 2 || got[0] != "203.0.113.9" {
		t.Fatalf("budget spent for %v, want the client address once per fetch", got)
	}

	var store models.OAuthClientStore
	if _, err := store.Disable(t.Context(), e.db, id, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Hour)
	c, err = e.reg.Client(ctx, id)
	wantNotFound(t, "disabled", c, err)
	if e.docs.hits.Load() != 2 {
		t.Fatalf("a disabled client's document was fetched")
	}
}

// TestRegistryRefusesBadDocuments: each document that breaks a rule is
// not a client, and its failure is kept for 5 minutes: the next
// resolution fetches nothing, even once the document is fixed.
func TestRegistryRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, nil, 0)
	redirectTarget := e.url("/target.json")
	cases := []struct {
		name string
		h    func(id string) http.HandlerFunc
	}{

		{"client_id differs", func(id string) http.HandlerFunc { return document(goodDoc(e.url("/other.json")), "") }},
		{"confidential", func(id string) http.HandlerFunc {
			return document(strings.Replace(goodDoc(id), `"scope"`, `"token_endpoint_auth_method":"client_secret_basic","scope"`, 1), "")
		}},
		{"6 kB", func(id string) http.HandlerFunc {
			return document(strings.Replace(goodDoc(id), `"extra":[1,2]`, `"extra":"`+strings.Repeat("x", 6<<10)+`"`, 1), "")
		}},
		{"6 kB without length", func(id string) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"client_id":"` + id + `","client_name":"A","redirect_uris":["http://127.0.0.1/cb"],"x":"`))
				w.(http.Flusher).Flush()
				_, _ = w.Write([]byte(strings.Repeat("x", 6<<10) + `"}`))
			}
		}},
		{"redirect", func(id string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/target.json" {
					document(goodDoc(id), "")(w, r)
					return
				}
				http.Redirect(w, r, redirectTarget, http.StatusFound)
			}
		}},
		{"not JSON", func(id string) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(goodDoc(id)))
			}
		}},
		{"404", func(id string) http.HandlerFunc { return http.NotFound }},
		{"bad redirect URI", func(id string) http.HandlerFunc {
			return document(strings.Replace(goodDoc(id), "http://127.0.0.1/cb", "http://evil.example/cb", 1), "")
		}},
		{"no name", func(id string) http.HandlerFunc {
			return document(strings.Replace(goodDoc(id), `"client_name":"Agent",`, "", 1), "")
		}},
	}
	for i, tc := range cases {
		id := e.url(fmt.Sprintf("/c%d/client.json", i))
		e.docs.serve(tc.h(id))
		before := e.docs.hits.Load()
		c, err := e.reg.Client(t.Context(), id)
		wantNotFound(t, tc.name, c, err)
		if tc.name == "redirect" && e.docs.hits.Load() != before+1 {
			t.Errorf("redirect: %d requests, want 1 (the redirect not followed)", e.docs.hits.Load()-before)
		}
		// Fixed at once, it is still refused for FailureTTL, unfetched.
		e.docs.serve(document(goodDoc(id), ""))
		hits := e.docs.hits.Load()
		c, err = e.reg.Client(t.Context(), id)
		wantNotFound(t, tc.name+", cached", c, err)
		if e.docs.hits.Load() != hits {
			t.Errorf("%s: the failure was not cached: fetched again", tc.name)
		}
		conn := e.pool.Get()
		ttl, err := redis.Int64(conn.Do("PTTL", e.reg.failureKey(id)))
		if err != nil || ttl <= 4*60*1000 || ttl > 5*60*1000 {
			t.Errorf("%s: failure kept for %d ms (%v), want 5 min", tc.name, ttl, err)
		}
		// Once the failure has expired, the fixed document is accepted.
		_, _ = conn.Do("DEL", e.reg.failureKey(id))
		conn.Close()
		if _, err := e.reg.Client(t.Context(), id); err != nil {
			t.Errorf("%s: fixed document after the failure expired: %v", tc.name, err)
		}
	}
}

// TestRegistrySlowDocumentTimesOut: a document that does not answer within
// the timeout is refused.
func TestRegistrySlowDocumentTimesOut(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, nil, 300*time.Millisecond)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	e.docs.serve(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	c, err := e.reg.Client(t.Context(), e.url("/slow.json"))
	wantNotFound(t, "slow", c, err)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}

// TestRegistryRefusesPrivateAddresses: a document host that resolves to
// loopback, a private, link-local, shared or unique-local address, the
// cloud metadata address, or an IPv4-mapped or NAT64 form of loopback is
// never connected to (the guard checks the address at connect time), nor
// is an address literal or an http URL of a host not in
// OAUTH_INSECURE_HOSTS, or a URL without a path.
func TestRegistryRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	var answer atomic.Value
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr(answer.Load().(string))}, nil
	}
	e := newRegistryEnv(t, lookup, 0)
	for i, addr := range []string{"127.0.0.1", "10.1.2.3", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.1.2.3",
		"::ffff:127.0.0.1", "64:ff9b::7f00:1", "::1", "fc00::1", "fe80::1"} {
		answer.Store(addr)
		id := fmt.Sprintf("https://docs%d.example/client.json", i)
		c, err := e.reg.Client(t.Context(), id)
		wantNotFound(t, addr, c, err)
		if !errors.Is(err, webhooks.ErrRefusedAddress) {
			t.Errorf("%s: %v, want a refused address", addr, err)
		}
	}
	for _, id := range []string{"https://127.0.0.2/client.json", "https://[::1]/client.json", "https://10.0.0.1/c.json", "https://169.254.169.254/latest/meta-data"} {
		c, err := e.reg.Client(t.Context(), id)
		wantNotFound(t, id, c, err)
		if !errors.Is(err, webhooks.ErrRefusedAddress) {
			t.Errorf("%s: %v, want a refused address", id, err)
		}
	}
	for _, id := range []string{"http://docs.example/client.json", "https://docs.example", "https://docs.example/",
		"https://u@docs.example/c.json", "https://docs.example/a/../c.json", "https://docs.example/c.json#x"} {
		c, err := e.reg.Client(t.Context(), id)
		wantNotFound(t, id, c, err)
	}
	if n := e.docs.hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the loopback server", n)
	}
}

// TestRegistrySharesOneFetch: concurrent first resolutions of one URL in
// a process fetch it once.
func TestRegistrySharesOneFetch(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, nil, 0)
	id := e.url("/client.json")
	release := make(chan struct{})
	e.docs.serve(func(w http.ResponseWriter, r *http.Request) {
		<-release
		document(goodDoc(id), "")(w, r)
	})
	const n = 5
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := e.reg.Client(t.Context(), id)
			errs <- err
		}()
	}
	poll.Until(t, 10*time.Second, "every resolution waiting for the fetch", func() bool {
		e.reg.mu.Lock()
		defer e.reg.mu.Unlock()
		f := e.reg.flights[id]
		return f != nil && f.waiters == n
	})
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := e.docs.hits.Load(); got != 1 {
		t.Fatalf("%d fetches, want 1", got)
	}
}

// TestRegistryBudgetAndDatabaseClients: a fetch over the budget is a
// RateLimitedError (not a missing client); ak_ clients come from the
// database, disabled ones are not found; with metadata documents off a
// URL is an unknown client, never fetched.
func TestRegistryBudgetAndDatabaseClients(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, nil, 0)
	e.budget.max = 0
	id := e.url("/client.json")
	e.docs.serve(document(goodDoc(id), ""))
	_, err := e.reg.Client(WithClientIP(t.Context(), "198.51.100.7"), id)
	var rl *RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second || errors.Is(err, models.ErrNotFound) {
		t.Fatalf("over budget: %v", err)
	}

	svc := NewService(e.db, Policy{}, e.clock.Now)
	str := func(s string) *string { return &s }
	admin, _, err := svc.Create(t.Context(), Input{Name: str("Web"), RedirectURIs: []string{"https://app.example/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := e.reg.Client(t.Context(), admin.ClientID); err != nil || c.ClientID != admin.ClientID {
		t.Fatalf("admin client: %v", err)
	}
	if err := svc.Delete(t.Context(), admin.ClientID); err != nil {
		t.Fatal(err)
	}
	c, err := e.reg.Client(t.Context(), admin.ClientID)
	wantNotFound(t, "disabled admin client", c, err)
	c, err = e.reg.Client(t.Context(), "ak_unknown")
	wantNotFound(t, "unknown", c, err)

	off := NewRegistry(RegistryConfig{DB: e.db, Now: e.clock.Now, Guard: &webhooks.Guard{Insecure: []string{"127.0.0.1"}}})
	hits := e.docs.hits.Load()
	c, err = off.Client(t.Context(), id)
	wantNotFound(t, "documents off", c, err)
	if e.docs.hits.Load() != hits {
		t.Fatal("fetched with documents off")
	}
}
