package main

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver"
	"github.com/actionkit/actionkit/ratelimit"
)

// oauthClients is how the provider looks clients up; compose's default is
// the plain table (the client registry with metadata documents replaces
// it when wired).
var oauthClients = func(a *app) oauthserver.Clients {
	return oauthserver.DBClients{DB: a.db, Store: models.OAuthClientStore{}.Prepared(a.db)}
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
		DB: a.db, Users: a.users, Clients: oauthClients(a),
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
// OAUTH_PROVIDER.
func (a *app) registerOAuth(fw *framework.Framework, limits *rateLimits) {
	s := a.newOAuthServer(limits)
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

// oauthLimits is the rate class oauth over the server's budgets: every
// request of the class spends the bound of 10 × AUTH_RATE_LIMIT_MAX, and a
// failed client authentication or grant spends AUTH_RATE_LIMIT_MAX.
type oauthLimits struct{ l *rateLimits }

// Attempt implements oauthserver.Limits.
func (o oauthLimits) Attempt(r *http.Request) (time.Duration, bool) {
	return o.take(r, "oauth-attempt", 10*o.l.authMax)
}

// Failure implements oauthserver.Limits.
func (o oauthLimits) Failure(r *http.Request) (time.Duration, bool) {
	return o.take(r, string(action.RateOAuth), o.l.authMax)
}

func (o oauthLimits) take(r *http.Request, class string, limit int) (time.Duration, bool) {
	if o.l == nil || o.l.auth == nil || limit <= 0 {
		return 0, true
	}
	client := ratelimit.ClientKey(framework.ClientIP(r), o.l.ipv6Prefix)
	d := o.l.auth.Allow(r.Context(), "auth:"+class+":"+client, limit, o.l.authWindow)
	return refusalWait(d), d.Allowed
}
