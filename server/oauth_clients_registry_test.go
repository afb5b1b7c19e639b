package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver/clients"
	"github.com/actionkit/actionkit/ratelimit"
)

// TestOAuthClientRegistryWiring: the Registry the server builds for the
// authorization server resolves a client ID metadata document on an
// OAUTH_INSECURE_HOSTS host, goes through the webhooks' guard (its
// resolver included: a host answering a private address is refused), and
// spends the oauth class of the address given with WithClientIP, past
// which a fetch is refused as rate limited.
func TestOAuthClientRegistryWiring(t *testing.T) {
	t.Parallel()
	env := oauthEnv(t, "OAUTH_INSECURE_HOSTS=127.0.0.1", "AUTH_RATE_LIMIT_MAX=2")
	env["DATABASE_URL"] = pgtest.NewDSN(t)
	cfg, err := loadEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	db, err := models.Open(t.Context(), cfg.DatabaseURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, err := compose(cfg, slog.New(slog.DiscardHandler), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	limiter := ratelimit.New(ratelimit.Config{Pool: a.redis, Prefix: cfg.JobsNamespace + ":ratelimit:", Logger: a.log})
	t.Cleanup(limiter.Close)
	limits := &rateLimits{auth: limiter, authMax: cfg.AuthRateLimitMax, authWindow: cfg.AuthRateLimitWindow, ipv6Prefix: cfg.RateLimitIPv6Prefix}
	a.webhooks.Guard.Lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("10.0.0.7")}, nil
	}
	reg := a.oauth.newClientRegistry(limits)

	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id":"http://%s%s","client_name":"Agent","redirect_uris":["http://127.0.0.1/cb"]}`, r.Host, r.URL.Path)
	}))
	t.Cleanup(srv.Close)

	ctx := clients.WithClientIP(t.Context(), "203.0.113.5")
	c, err := reg.Client(ctx, srv.URL+"/a.json")
	if err != nil || c.Source != models.OAuthClientMetadata || c.Name != "Agent" {
		t.Fatalf("document client: %v %+v", err, c)
	}
	if _, err := reg.Client(ctx, srv.URL+"/a.json"); err != nil || hits.Load() != 1 {
		t.Fatalf("cached: %v, %d fetches", err, hits.Load())
	}
	// The guard's resolver is the webhooks' (the tests' resolver, or the
	// system's): a name answering a private address is never reached.
	_, err = reg.Client(ctx, "https://agent.example/client.json")
	if !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("private address: %v", err)
	}
	// Two fetches spent the budget of 2: the next one is refused.
	_, err = reg.Client(ctx, srv.URL+"/b.json")
	var rl *clients.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter <= 0 {
		t.Fatalf("third fetch: %v, want rate limited", err)
	}
	// Another address has its own budget.
	if _, err := reg.Client(clients.WithClientIP(t.Context(), "198.51.100.9"), srv.URL+"/b.json"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}
