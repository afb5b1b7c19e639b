package main

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/accesstoken"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/oauthserver"
)

// resourceName is the resource_name of the protected-resource metadata.
const resourceName = "actionkit"

// oauthResource makes the bundled server an OAuth protected resource of
// its own authorization server (CONTRACT §20), when OAUTH_PROVIDER is on:
// the scoped actions accept its access tokens for PUBLIC_URL, and the
// tools are served over MCP at MCP_PATH for <PUBLIC_URL><MCP_PATH>. Nil
// (none of it) while the provider is off or without a database.
func (a *app) oauthResource() *framework.OAuth {
	if !a.cfg.OAuth.Enabled || a.keys == nil {
		return nil
	}
	return &framework.OAuth{
		Issuer: a.cfg.OAuth.Issuer, Keys: a.keys, Algorithms: []string{a.cfg.AccessTokenAlg},
		Resource: a.cfg.PublicURL, ResourceName: resourceName, MCPPath: a.cfg.OAuth.MCPPath,
		Sessions: oauthSessions{users: a.users},
		// The tools' input schemas document the named rules as the
		// OpenAPI document does.
		Rules: openAPIInfo(a.cfg, a.catalog).Rules,
	}
}

// supportedScopes are the scopes the authorization server supports: the
// OpenID ones and every scope an action of fw declares.
func supportedScopes(fw *framework.Framework) []string {
	scopes := oauthserver.DefaultScopes()
	for _, s := range fw.DeclaredScopes() {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return scopes
}

// oauthSessions resolves the caller of an OAuth access token from the
// user's session it names, read at every request, so that a token whose
// session ended (a revoked app, a logout everywhere, a password change)
// is refused at once rather than when it expires.
type oauthSessions struct {
	users *accounts.Service
}

// OAuthCaller implements framework.OAuthSessions: a user's token with a
// live session of that user (a token without sid, of client_credentials,
// names no user: the bundled server declares no client scopes, so it is
// refused).
func (o oauthSessions) OAuthCaller(ctx context.Context, owner action.OwnerType, tok *accesstoken.Token, needs action.Needs) (*action.Caller, error) {
	if owner != accounts.Users.Type || tok.SessionID == "" {
		return nil, nil
	}
	user, err1 := uuid.Parse(tok.Subject)
	sid, err2 := uuid.Parse(tok.SessionID)
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	p, err := o.users.Load(ctx, user, sid, needs)
	if errors.Is(err, auth.ErrUnknownOwner) || errors.Is(err, auth.ErrSessionEnded) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &action.Caller{Type: owner, ID: user, SessionID: sid, TokenVersion: p.TokenVersion,
		SessionExpiresAt: p.SessionExpiresAt, Assurance: p.Assurance, Locale: p.Locale, Record: p.Record}, nil
}
