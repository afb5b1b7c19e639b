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
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver"
	"github.com/actionkit/actionkit/ratelimit"
)

// oauthClients is how the provider looks clients up: the client registry
// (admin and dynamic clients, and client ID metadata documents when they
// are on), its fetches spending the oauth class of limits.
func oauthClients(a *app, limits *rateLimits) oauthserver.Clients {
	if a.db == nil {
		return oauthserver.DBClients{}
	}
	return a.newOAuthClientRegistry(limits)
}

// newOAuthServer builds actionkit as an OAuth 2.1 authorization server and
// OpenID provider (CONTRACT §19) over the users' engine and the signing
// keys; limits (nil: none) bounds its token endpoint.
func (a *app) newOAuthServer(limits *rateLimits) *oauthserver.Server {
	o := a.cfg.OAuth
	s := &oauthserver.Server{
		Config: oauthserver.Config{
			Issuer: o.Issuer, InteractionURL: o.InteractionURL, Resources: o.Resources,
			AccessTokenTTL: o.AccessTokenTTL, AccessTokenAlg: a.cfg.AccessTokenAlg,
			DynamicRegistration: o.DynamicRegistration, MetadataDocuments: o.MetadataDocuments,
			SecureCookies: a.cfg.production(),
		},
		DB: a.db, Users: a.users, OAuthSessions: &accounts.OAuthSessions{Engine: a.users},
		Clients: oauthClients(a, limits), ClientIP: framework.ClientIP,
		Store: models.OAuthFlowStore{}, Notices: a.mailer, Now: a.now, Log: a.log,
		ReauthDetails: func(ctx context.Context, user uuid.UUID, factor bool) (any, error) {
			methods, err := a.userRooms.factors.ReauthMethods(ctx, user, factor)
			return v1.ReauthDetails{Methods: methods}, err
		},
	}
	if a.db != nil {
		s.ClientStore = models.OAuthClientStore{}.Prepared(a.db)
		s.Store = models.OAuthFlowStore{}.Prepared(a.db)
	}
	if a.keys != nil {
		s.Keys = a.keys
		s.IDKeys = a.keys // the RS256 ID-token key (signingkeys.Ring.IDTokenKey)
	}
	if limits != nil {
		s.Limits = oauthLimits{limits}
	}
	return s
}

// registerOAuth mounts the provider: its interaction actions always (they
// answer USER_BAD_REQUEST_INVALID_OAUTH_REQUEST while it is off, no request
// being pending), its discovery documents and protocol endpoints only with
// OAUTH_PROVIDER. It supports the scopes of every action registered on fw
// before it, beside the OpenID ones.
func (a *app) registerOAuth(fw *framework.Framework, limits *rateLimits) {
	s := a.newOAuthServer(limits)
	s.Scopes = supportedScopes(fw)
	request, approve, deny := s.Actions()
	framework.Register(fw, request)
	framework.Register(fw, approve)
	framework.Register(fw, deny)
	var appStore models.OAuthAppStore
	if a.db != nil {
		appStore = appStore.Prepared(a.db)
	}
	apps, revokeApp := s.AppActions(appStore)
	framework.Register(fw, apps)
	framework.Register(fw, revokeApp)
	if a.cfg.OAuth.Enabled && a.db != nil {
		s.Mount(fw.Handle)
	}
}

// oauthCORS answers the CORS preflights of the provider's public
// endpoints (any origin, no credentials) when it is on.
func (a *app) oauthCORS(h http.Handler) http.Handler {
	if !a.cfg.OAuth.Enabled {
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

// purgeOAuth deletes the provider's expired requests and codes and the
// grants of purged sessions (the clock's session purge runs it).
func (a *app) purgeOAuth(ctx context.Context) error {
	n, err := models.OAuthFlowStore{}.Purge(ctx, a.db, a.now().Add(-oauthRetention), 1000)
	if err == nil {
		a.log.Info("purged expired OAuth requests, codes and grants", "deleted", n)
	}
	return err
}
