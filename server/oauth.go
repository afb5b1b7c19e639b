package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver"
	"github.com/actionkit/actionkit/oauthserver/clients"
	"github.com/actionkit/actionkit/ratelimit"
	"github.com/actionkit/actionkit/signingkeys"
	"github.com/actionkit/actionkit/webhooks"
)

// oauthProvider wires actionkit's OAuth 2.1 authorization server and
// OpenID provider (CONTRACT §19): the registration of its clients, its
// endpoints and actions, their CORS and the clock's purges of its rows.
// compose builds it once, after the users' engine and the webhooks; it
// holds only what the provider is built from.
type oauthProvider struct {
	cfg   *config
	db    *sqlx.DB // nil: none (a test that only describes the actions)
	redis *redis.Pool
	// users is the users' engine, factors its second factors (for the
	// members of a re-authentication answer).
	users   *accounts.Service
	factors *accounts.SecondFactors
	keys    *signingkeys.Ring // nil without a database
	mailer  *mail.Mailer
	// guard is the webhooks' guard, through which client ID metadata
	// documents are fetched.
	guard *webhooks.Guard
	now   func() time.Time
	log   *slog.Logger
	// clients registers OAuth clients (oauth_clients.go); anyOrigin holds
	// the protocol endpoints open to CORS from any origin.
	clients   *clients.Service
	anyOrigin map[string]bool
}

// newOAuthProvider builds the provider's wiring from the parts of a. The
// registration of clients is built here, once: disabling a client closes
// the sockets of the sessions it ended, after commit.
func newOAuthProvider(a *app) *oauthProvider {
	p := &oauthProvider{
		cfg: a.cfg, db: a.db, redis: a.redis, users: a.users, factors: a.userRooms.factors, keys: a.keys,
		mailer: a.mailer, guard: a.webhooks.Guard, now: a.now, log: a.log, anyOrigin: map[string]bool{},
	}
	p.clients = clients.NewService(p.db, p.clientPolicy(), p.now)
	p.clients.Ended = func(user uuid.UUID, sessions []uuid.UUID) { a.ended(accounts.Users.Type, user, sessions) }
	return p
}

// clientLookup returns how the provider looks clients up: the client
// registry (admin and dynamic clients, and client ID metadata documents
// when they are on), its fetches spending the oauth class of limits.
func (p *oauthProvider) clientLookup(limits *rateLimits) oauthserver.Clients {
	if p.db == nil {
		return oauthserver.DBClients{}
	}
	return p.newClientRegistry(limits)
}

// newServer builds actionkit as an OAuth 2.1 authorization server and
// OpenID provider over the users' engine and the signing keys; limits
// (nil: none) bounds its token endpoint.
func (p *oauthProvider) newServer(limits *rateLimits) *oauthserver.Server {
	o := p.cfg.OAuth
	s := &oauthserver.Server{
		Config: oauthserver.Config{
			Issuer: o.Issuer, InteractionURL: o.InteractionURL, Resources: o.Resources,
			AccessTokenTTL: o.AccessTokenTTL, AccessTokenAlg: p.cfg.AccessTokenAlg,
			DynamicRegistration: o.DynamicRegistration, MetadataDocuments: o.MetadataDocuments,
			SecureCookies: p.cfg.production(),
		},
		DB: p.db, Users: p.users, OAuthSessions: &accounts.OAuthSessions{Engine: p.users},
		Clients: p.clientLookup(limits), ClientIP: framework.ClientIP,
		Store: models.OAuthFlowStore{}, Notices: p.mailer, Now: p.now, Log: p.log,
		ReauthDetails: func(ctx context.Context, user uuid.UUID, factor bool) (any, error) {
			methods, err := p.factors.ReauthMethods(ctx, user, factor)
			return v1.ReauthDetails{Methods: methods}, err
		},
	}
	if p.db != nil {
		s.ClientStore = models.OAuthClientStore{}.Prepared(p.db)
		s.Store = models.OAuthFlowStore{}.Prepared(p.db)
	}
	if p.keys != nil {
		s.Keys = p.keys
		s.IDKeys = p.keys // the RS256 ID-token key (signingkeys.Ring.IDTokenKey)
	}
	if limits != nil {
		s.Limits = oauthLimits{limits}
	}
	return s
}

// register mounts the provider: its interaction actions always (they
// answer USER_BAD_REQUEST_INVALID_OAUTH_REQUEST while it is off, no request
// being pending), its discovery documents and protocol endpoints only with
// OAUTH_PROVIDER. It supports the scopes of every action registered on fw
// before it, beside the OpenID ones.
func (p *oauthProvider) register(fw *framework.Framework, limits *rateLimits) {
	s := p.newServer(limits)
	s.Scopes = supportedScopes(fw)
	request, approve, deny := s.Actions()
	framework.Register(fw, request)
	framework.Register(fw, approve)
	framework.Register(fw, deny)
	var appStore models.OAuthAppStore
	if p.db != nil {
		appStore = appStore.Prepared(p.db)
	}
	apps, revokeApp := s.AppActions(appStore)
	framework.Register(fw, apps)
	framework.Register(fw, revokeApp)
	if p.cfg.OAuth.Enabled && p.db != nil {
		s.Mount(fw.Handle)
	}
}

// cors answers the CORS preflights of the provider's public endpoints
// (any origin, no credentials) when it is on.
func (p *oauthProvider) cors(h http.Handler) http.Handler {
	if !p.cfg.OAuth.Enabled {
		return h
	}
	return oauthserver.CORS(h)
}

// oauthLimits is the rate class oauth over the server's budgets, counted
// as the password class is (limits_password.go): failed client
// authentications and grants spend AUTH_RATE_LIMIT_MAX per client
// address, every request 10 × AUTH_RATE_LIMIT_MAX, and a request is
// refused before it is evaluated once either is spent.
type oauthLimits struct{ l *rateLimits }

// keys are the budgets of the request's client address.
func (o oauthLimits) keys(r *http.Request) (failures, attempts string) {
	client := ratelimit.ClientKey(framework.ClientIP(r), o.l.ipv6Prefix)
	return "auth:" + string(action.RateOAuth) + ":" + client, "auth:" + string(action.RateOAuth) + "-attempts:" + client
}

// Attempt implements oauthserver.Limits.
func (o oauthLimits) Attempt(r *http.Request) (time.Duration, bool) {
	if o.l.auth == nil || o.l.authMax <= 0 {
		return 0, true
	}
	failures, attempts := o.keys(r)
	if d := o.l.auth.Peek(r.Context(), failures, o.l.authMax, o.l.authWindow); !d.Allowed {
		return refusalWait(d), false
	}
	if d := o.l.auth.Allow(r.Context(), attempts, passwordAttemptsFactor*o.l.authMax, o.l.authWindow); !d.Allowed {
		return refusalWait(d), false
	}
	return 0, true
}

// Failure implements oauthserver.Limits.
func (o oauthLimits) Failure(r *http.Request) {
	if o.l.auth == nil || o.l.authMax <= 0 {
		return
	}
	failures, _ := o.keys(r)
	o.l.auth.Allow(context.WithoutCancel(r.Context()), failures, o.l.authMax, o.l.authWindow)
}

// oauthRetention is how long the provider keeps an expired request or
// code: a code presented again within it still ends its session.
const oauthRetention = 24 * time.Hour

// purge deletes the provider's expired requests and codes and the grants
// of purged sessions (the clock's session purge runs it).
func (p *oauthProvider) purge(ctx context.Context) error {
	n, err := models.OAuthFlowStore{}.Purge(ctx, p.db, p.now().Add(-oauthRetention), 1000)
	if err == nil {
		p.log.Info("purged expired OAuth requests, codes and grants", "deleted", n)
	}
	return err
}
