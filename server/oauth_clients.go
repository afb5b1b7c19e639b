package main

import (
	"context"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/oauthserver/clients"
	"github.com/actionkit/actionkit/ratelimit"
)

// registerPath is the RFC 7591 dynamic registration endpoint.
const registerPath = "/oauth2/register"

// clientPolicy returns what clients may name: the OpenID scopes and the
// scopes the bundled actions declare (§20; the registry is built before
// the actions, TestOAuthScopesAreDeclared keeps the two lists equal), and
// RS256 or ACCESS_TOKEN_ALG for ID tokens.
func (p *oauthProvider) clientPolicy() clients.Policy {
	return clients.Policy{ActionScopes: v1.Scopes(), AccessTokenAlg: p.cfg.AccessTokenAlg}
}

// oauthBudget spends the oauth rate class of a client address (CONTRACT
// §19, §22): dynamic registrations and client metadata document fetches
// count in it, AUTH_RATE_LIMIT_MAX per AUTH_RATE_LIMIT_WINDOW.
type oauthBudget struct{ l *rateLimits }

// Spend counts one request of ip.
func (b oauthBudget) Spend(ctx context.Context, ip string) (time.Duration, bool) {
	d, ok := b.l.spend(ctx, action.RateOAuth, ratelimit.ClientKey(ip, b.l.ipv6Prefix))
	if ok {
		return 0, true
	}
	return refusalWait(d), false
}

// oauthClientBudget returns the budget of the oauth class on limits, nil
// (not limited) without limits.
func oauthClientBudget(limits *rateLimits) clients.Budget {
	if limits == nil {
		return nil
	}
	return oauthBudget{l: limits}
}

// newClientRegistry builds the Registry that resolves client_ids for
// the authorization server (package oauthserver's Clients): admin and
// dynamic clients from the database and, when
// OAUTH_CLIENT_METADATA_DOCUMENTS is on, client ID metadata documents,
// fetched through the webhooks' guard (OAUTH_INSECURE_HOSTS and the
// test resolver apply alike), their failures kept in Redis, each fetch
// spending the oauth class of the address given with
// clients.WithClientIP.
func (p *oauthProvider) newClientRegistry(limits *rateLimits) *clients.Registry {
	return clients.NewRegistry(clients.RegistryConfig{
		DB: p.db, Policy: p.clientPolicy(), Now: p.now,
		MetadataDocuments: p.cfg.OAuth.MetadataDocuments, Guard: p.guard,
		Redis: p.redis, Prefix: p.cfg.JobsNamespace + ":oauth:cimd-failed:",
		Budget: oauthClientBudget(limits), Log: p.log,
	})
}

// registerClientActions mounts, when OAUTH_PROVIDER is on, the admin
// actions of OAuth clients and, when OAUTH_DYNAMIC_REGISTRATION is on,
// POST /oauth2/register.
func (p *oauthProvider) registerClientActions(fw *framework.Framework, limits *rateLimits) {
	if !p.cfg.OAuth.Enabled {
		return
	}
	framework.Register(fw, &v1.AdminListOAuthClients{Clients: p.clients})
	framework.Register(fw, &v1.AdminCreateOAuthClient{Clients: p.clients})
	framework.Register(fw, &v1.AdminUpdateOAuthClient{Clients: p.clients})
	framework.Register(fw, &v1.AdminRotateOAuthClientSecret{Clients: p.clients})
	framework.Register(fw, &v1.AdminDeleteOAuthClient{Clients: p.clients})
	if p.cfg.OAuth.DynamicRegistration {
		fw.Handle(http.MethodPost, registerPath, &clients.Registration{
			Service: p.clients, Budget: oauthClientBudget(limits), ClientIP: framework.ClientIP,
		})
		p.anyOrigin[registerPath] = true
	}
}

// purgeClients deletes the dynamic clients that completed no
// authorization within 24 h (the clock's purge).
func (p *oauthProvider) purgeClients(ctx context.Context) error {
	n, err := p.clients.PurgeUnusedDynamic(ctx)
	if err == nil {
		p.log.Info("purged unused dynamic OAuth clients", "deleted", n)
	}
	return err
}

// anyOriginCORS answers the CORS requests of the protocol endpoints in
// p.anyOrigin from any origin, never with credentials (CONTRACT §19): a
// preflight is answered here, and another request reaches the framework
// without its Origin (so that CORS_ORIGINS adds no credentials) and leaves
// with Access-Control-Allow-Origin: *.
func (p *oauthProvider) anyOriginCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.anyOrigin[r.URL.Path] || r.Header.Get("Origin") == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate")
		r = r.Clone(r.Context())
		r.Header.Del("Origin")
		next.ServeHTTP(w, r)
	})
}
