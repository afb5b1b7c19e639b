package main

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/oauthserver/clients"
	"github.com/actionkit/actionkit/ratelimit"
)

// registerPath is the RFC 7591 dynamic registration endpoint.
const registerPath = "/oauth2/register"

// oauthClientPolicy is what clients may name: the OpenID scopes and the
// scopes the bundled actions declare (§20; the registry is built before
// the actions, TestOAuthScopesAreDeclared keeps the two lists equal), and
// RS256 or ACCESS_TOKEN_ALG for ID tokens.
func (a *app) oauthClientPolicy() clients.Policy {
	return clients.Policy{ActionScopes: v1.Scopes(), AccessTokenAlg: a.cfg.AccessTokenAlg}
}

// newOAuthClients builds the registration of OAuth clients (compose calls
// it once): disabling a client closes the sockets of the sessions it
// ended, after commit.
func (a *app) newOAuthClients() *clients.Service {
	svc := clients.NewService(a.db, a.oauthClientPolicy(), a.now)
	svc.Ended = func(user uuid.UUID, sessions []uuid.UUID) { a.ended(accounts.Users.Type, user, sessions) }
	return svc
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

// newOAuthClientRegistry builds the Registry that resolves client_ids for
// the authorization server (package oauthserver's Clients): admin and
// dynamic clients from the database and, when
// OAUTH_CLIENT_METADATA_DOCUMENTS is on, client ID metadata documents,
// fetched through the webhooks' guard (OAUTH_INSECURE_HOSTS and the
// test resolver apply alike), their failures kept in Redis, each fetch
// spending the oauth class of the address given with
// clients.WithClientIP.
func (a *app) newOAuthClientRegistry(limits *rateLimits) *clients.Registry {
	return clients.NewRegistry(clients.RegistryConfig{
		DB: a.db, Policy: a.oauthClientPolicy(), Now: a.now,
		MetadataDocuments: a.cfg.OAuth.MetadataDocuments, Guard: a.webhooks.Guard,
		Redis: a.redis, Prefix: a.cfg.JobsNamespace + ":oauth:cimd-failed:",
		Budget: oauthClientBudget(limits), Log: a.log,
	})
}

// registerOAuthClientActions mounts, when OAUTH_PROVIDER is on, the admin
// actions of OAuth clients and, when OAUTH_DYNAMIC_REGISTRATION is on,
// POST /oauth2/register.
func (a *app) registerOAuthClientActions(fw *framework.Framework, limits *rateLimits) {
	if !a.cfg.OAuth.Enabled {
		return
	}
	framework.Register(fw, &v1.AdminListOAuthClients{Clients: a.oauthClients})
	framework.Register(fw, &v1.AdminCreateOAuthClient{Clients: a.oauthClients})
	framework.Register(fw, &v1.AdminUpdateOAuthClient{Clients: a.oauthClients})
	framework.Register(fw, &v1.AdminRotateOAuthClientSecret{Clients: a.oauthClients})
	framework.Register(fw, &v1.AdminDeleteOAuthClient{Clients: a.oauthClients})
	if a.cfg.OAuth.DynamicRegistration {
		fw.Handle(http.MethodPost, registerPath, &clients.Registration{
			Service: a.oauthClients, Budget: oauthClientBudget(limits), ClientIP: framework.ClientIP,
		})
		a.anyOrigin[registerPath] = true
	}
}

// purgeOAuthClients deletes the dynamic clients that completed no
// authorization within 24 h (the clock's purge).
func (a *app) purgeOAuthClients(ctx context.Context) error {
	n, err := a.oauthClients.PurgeUnusedDynamic(ctx)
	if err == nil {
		a.log.Info("purged unused dynamic OAuth clients", "deleted", n)
	}
	return err
}

// anyOriginCORS answers the CORS requests of the protocol endpoints in
// a.anyOrigin from any origin, never with credentials (CONTRACT §19): a
// preflight is answered here, and another request reaches the framework
// without its Origin (so that CORS_ORIGINS adds no credentials) and leaves
// with Access-Control-Allow-Origin: *.
func (a *app) anyOriginCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.anyOrigin[r.URL.Path] || r.Header.Get("Origin") == "" {
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
