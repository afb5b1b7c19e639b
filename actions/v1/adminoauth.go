package v1

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/oauthserver/clients"
)

// The admin actions of OAuth clients (CONTRACT §19). Every change is
// sensitive (§22): a stolen admin session alone must not register a
// client, read a new secret or widen a client's redirect URIs.

// adminOAuthSpec names an admin action on OAuth clients: verb
// "ListOAuthClients" becomes V1AdminListOAuthClients at
// /v1/admins/oauth/clients<path>.
func adminOAuthSpec(verb, path, summary string, sensitive bool, errs ...errorcodes.Code) action.Spec {
	return adminSpec("/v1/admins/oauth/clients", verb, path, summary, sensitive, errs...)
}

// OAuthClientView is an OAuth client on the wire; its secret never is.
type OAuthClientView struct {
	ClientID                string     `json:"clientId"`
	Name                    string     `json:"name"`
	RedirectURIs            []string   `json:"redirectUris"`
	PostLogoutRedirectURIs  []string   `json:"postLogoutRedirectUris"`
	GrantTypes              []string   `json:"grantTypes"`
	TokenEndpointAuthMethod string     `json:"tokenEndpointAuthMethod"`
	Scope                   *string    `json:"scope"`
	MinAAL                  int        `json:"minAal"`
	IDTokenAlg              string     `json:"idTokenAlg"`
	LogoURI                 *string    `json:"logoUri"`
	ClientURI               *string    `json:"clientUri"`
	Source                  string     `json:"source"`
	CreatedAt               time.Time  `json:"createdAt"`
	LastUsedAt              *time.Time `json:"lastUsedAt"`
}

func viewOAuthClient(c *models.OAuthClient) *OAuthClientView {
	return &OAuthClientView{ClientID: c.ClientID, Name: c.Name, RedirectURIs: c.RedirectURIs,
		PostLogoutRedirectURIs: c.PostLogoutRedirectURIs, GrantTypes: c.GrantTypes,
		TokenEndpointAuthMethod: c.TokenEndpointAuthMethod, Scope: c.Scope, MinAAL: int(c.MinAAL),
		IDTokenAlg: c.IDTokenAlg, LogoURI: c.LogoURI, ClientURI: c.ClientURI, Source: c.Source,
		CreatedAt: c.CreatedAt, LastUsedAt: c.LastUsedAt}
}

// oauthClientError maps the client service's failures to error codes.
func oauthClientError(err error) error {
	var fe *clients.FieldError
	switch {
	case errors.Is(err, clients.ErrNotFound):
		return clients.ClientNotFound.New()
	case errors.As(err, &fe):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			fe.Field: {Code: "invalid", Message: fe.Reason},
		})
	}
	return err
}

// OAuthClientsResult lists clients.
type OAuthClientsResult struct {
	Clients []*OAuthClientView `json:"clients"`
}

// OAuthClientResult is one client.
type OAuthClientResult struct {
	Client *OAuthClientView `json:"client"`
}

// OAuthClientSecretResult is a client with its secret, shown this once
// (null for a public client).
type OAuthClientSecretResult struct {
	Client       *OAuthClientView `json:"client"`
	ClientSecret *string          `json:"clientSecret"`
}

// OAuthClientIDArgs name a client.
type OAuthClientIDArgs struct {
	ClientID string `arg:"clientId" mod:"trim" validate:"required,max=2048"`
}

// OAuthClientArgs are the arguments of create, and of update beside
// clientId; what is not given takes its default at create and stays at
// update.
type OAuthClientArgs struct {
	Name                    *string  `arg:"name" validate:"max=200"`
	RedirectURIs            []string `arg:"redirectUris"`
	PostLogoutRedirectURIs  []string `arg:"postLogoutRedirectUris"`
	GrantTypes              []string `arg:"grantTypes"`
	TokenEndpointAuthMethod *string  `arg:"tokenEndpointAuthMethod" mod:"trim"`
	Scope                   *string  `arg:"scope" validate:"max=1000"`
	MinAAL                  *int     `arg:"minAal"`
	IDTokenAlg              *string  `arg:"idTokenAlg" mod:"trim"`
	LogoURI                 *string  `arg:"logoUri" mod:"trim" validate:"max=2048"`
	ClientURI               *string  `arg:"clientUri" mod:"trim" validate:"max=2048"`
}

func (a *OAuthClientArgs) input() clients.Input {
	return clients.Input{Name: a.Name, RedirectURIs: a.RedirectURIs, PostLogoutRedirectURIs: a.PostLogoutRedirectURIs,
		GrantTypes: a.GrantTypes, TokenEndpointAuthMethod: a.TokenEndpointAuthMethod, Scope: a.Scope, MinAAL: a.MinAAL,
		IDTokenAlg: a.IDTokenAlg, LogoURI: a.LogoURI, ClientURI: a.ClientURI}
}

// AdminListOAuthClients lists the enabled clients, newest first.
type AdminListOAuthClients struct {
	Clients *clients.Service
}

// Spec declares V1AdminListOAuthClients.
func (a *AdminListOAuthClients) Spec() action.Spec {
	return adminOAuthSpec("ListOAuthClients", "", "List the OAuth clients", false)
}

// Run lists them.
func (a *AdminListOAuthClients) Run(ctx context.Context, _ *action.Request, _ *Empty) (*OAuthClientsResult, error) {
	list, err := a.Clients.List(ctx)
	if err != nil {
		return nil, err
	}
	out := &OAuthClientsResult{Clients: make([]*OAuthClientView, len(list))}
	for i := range list {
		out.Clients[i] = viewOAuthClient(&list[i])
	}
	return out, nil
}

// AdminCreateOAuthClient registers a client and shows its secret once.
type AdminCreateOAuthClient struct {
	Clients *clients.Service
}

// Spec declares V1AdminCreateOAuthClient.
func (a *AdminCreateOAuthClient) Spec() action.Spec {
	s := adminOAuthSpec("CreateOAuthClient", "/create", "Register an application that signs users in with actionkit", true)
	s.Status = http.StatusCreated
	return s
}

// Run registers it.
func (a *AdminCreateOAuthClient) Run(ctx context.Context, _ *action.Request, in *OAuthClientArgs) (*OAuthClientSecretResult, error) {
	c, secret, err := a.Clients.Create(ctx, in.input())
	if err != nil {
		return nil, oauthClientError(err)
	}
	return &OAuthClientSecretResult{Client: viewOAuthClient(c), ClientSecret: secret}, nil
}

// AdminUpdateOAuthClient changes a client; what is not given stays.
type AdminUpdateOAuthClient struct {
	Clients *clients.Service
}

// UpdateOAuthClientArgs are the arguments of AdminUpdateOAuthClient.
type UpdateOAuthClientArgs struct {
	ClientID                string   `arg:"clientId" mod:"trim" validate:"required,max=2048"`
	Name                    *string  `arg:"name" validate:"max=200"`
	RedirectURIs            []string `arg:"redirectUris"`
	PostLogoutRedirectURIs  []string `arg:"postLogoutRedirectUris"`
	GrantTypes              []string `arg:"grantTypes"`
	TokenEndpointAuthMethod *string  `arg:"tokenEndpointAuthMethod" mod:"trim"`
	Scope                   *string  `arg:"scope" validate:"max=1000"`
	MinAAL                  *int     `arg:"minAal"`
	IDTokenAlg              *string  `arg:"idTokenAlg" mod:"trim"`
	LogoURI                 *string  `arg:"logoUri" mod:"trim" validate:"max=2048"`
	ClientURI               *string  `arg:"clientUri" mod:"trim" validate:"max=2048"`
}

func (a *UpdateOAuthClientArgs) input() clients.Input {
	return clients.Input{Name: a.Name, RedirectURIs: a.RedirectURIs, PostLogoutRedirectURIs: a.PostLogoutRedirectURIs,
		GrantTypes: a.GrantTypes, TokenEndpointAuthMethod: a.TokenEndpointAuthMethod, Scope: a.Scope, MinAAL: a.MinAAL,
		IDTokenAlg: a.IDTokenAlg, LogoURI: a.LogoURI, ClientURI: a.ClientURI}
}

// Spec declares V1AdminUpdateOAuthClient.
func (a *AdminUpdateOAuthClient) Spec() action.Spec {
	return adminOAuthSpec("UpdateOAuthClient", "/update", "Change an OAuth client", true, clients.ClientNotFound)
}

// Run changes it.
func (a *AdminUpdateOAuthClient) Run(ctx context.Context, _ *action.Request, in *UpdateOAuthClientArgs) (*OAuthClientResult, error) {
	c, err := a.Clients.Update(ctx, in.ClientID, in.input())
	if err != nil {
		return nil, oauthClientError(err)
	}
	return &OAuthClientResult{Client: viewOAuthClient(c)}, nil
}

// AdminRotateOAuthClientSecret gives a confidential client a new secret;
// the old one stops working at once.
type AdminRotateOAuthClientSecret struct {
	Clients *clients.Service
}

// Spec declares V1AdminRotateOAuthClientSecret.
func (a *AdminRotateOAuthClientSecret) Spec() action.Spec {
	return adminOAuthSpec("RotateOAuthClientSecret", "/rotatesecret", "Give an OAuth client a new secret", true, clients.ClientNotFound)
}

// Run rotates it.
func (a *AdminRotateOAuthClientSecret) Run(ctx context.Context, _ *action.Request, in *OAuthClientIDArgs) (*OAuthClientSecretResult, error) {
	c, secret, err := a.Clients.RotateSecret(ctx, in.ClientID)
	if err != nil {
		return nil, oauthClientError(err)
	}
	return &OAuthClientSecretResult{Client: viewOAuthClient(c), ClientSecret: &secret}, nil
}

// AdminDeleteOAuthClient disables a client: its sessions and consents end
// at once.
type AdminDeleteOAuthClient struct {
	Clients *clients.Service
}

// Spec declares V1AdminDeleteOAuthClient.
func (a *AdminDeleteOAuthClient) Spec() action.Spec {
	return adminOAuthSpec("DeleteOAuthClient", "/delete", "Disable an OAuth client and end its sessions", true, clients.ClientNotFound)
}

// Run disables it.
func (a *AdminDeleteOAuthClient) Run(ctx context.Context, _ *action.Request, in *OAuthClientIDArgs) (*Empty, error) {
	if err := a.Clients.Delete(ctx, in.ClientID); err != nil {
		return nil, oauthClientError(err)
	}
	return &Empty{}, nil
}
