package v1

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Sign-in through identity providers (users only): /v1/users/oidc/....
// start (or link) answers the provider's URL and binds the flow to the
// browser with the oidc-flow cookie; the provider sends the browser to
// callback, which sends it back to the flow's page with a one-time result
// code in the fragment; the page trades it at exchange for a login.

// oidcSpec names a user action of the identity-provider flows.
func oidcSpec(verb, path, summary string, auth action.Auth, errs ...errorcodes.Code) action.Spec {
	return action.Spec{Name: "V1" + verb, Path: "/v1/users/" + path, Summary: summary, Auth: auth, Errors: errs}
}

// federationError maps the failures of the identity-provider flows.
func federationError(err error) error {
	switch {
	case errors.Is(err, accounts.ErrInvalidRedirect):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"redirectTo": {Code: "not_allowed", Message: "must be an absolute URL, without a fragment, of an allowed origin (for an app, an allowed app scheme)"},
		})
	case errors.Is(err, accounts.ErrMissingChallenge):
		return errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"codeChallenge": {Code: "required", Message: "an app must give the S256 challenge of its PKCE verifier (43 base64url characters)"},
		})
	case errors.Is(err, accounts.ErrProviderUnavailable):
		e := errorcodes.ServiceUnavailable.New()
		e.RetryAfter = 5 * time.Second
		return e
	}
	if c := accounts.FederationCode(err); c != "" {
		return c.New()
	}
	return AccountError(accounts.Users, err)
}

// OIDCProviders lists the configured identity providers.
type OIDCProviders struct {
	Federation *accounts.Federation
}

// ProviderView is an identity provider on the wire.
type ProviderView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// OIDCProvidersResult is the answer of OIDCProviders.
type OIDCProvidersResult struct {
	Providers []ProviderView `json:"providers"`
}

// Spec declares V1OIDCProviders.
func (a *OIDCProviders) Spec() action.Spec {
	return oidcSpec("OIDCProviders", "oidc/providers", "List the identity providers you can sign in with", action.Public)
}

// Run lists them, in configuration order.
func (a *OIDCProviders) Run(context.Context, *action.Request, *struct{}) (*OIDCProvidersResult, error) {
	out := &OIDCProvidersResult{Providers: []ProviderView{}}
	for _, p := range a.Federation.Providers.Providers() {
		out.Providers = append(out.Providers, ProviderView{ID: p.ID, Name: p.Name})
	}
	return out, nil
}

// OIDCStart starts a sign-in through an identity provider.
type OIDCStart struct {
	Federation *accounts.Federation
	Cookies    Cookies
}

// OIDCStartArgs are the arguments of OIDCStart: the provider, the page to
// return to, and for an app the S256 challenge of its own PKCE verifier.
type OIDCStartArgs struct {
	Provider      string `arg:"provider" mod:"trim,lower" validate:"required,max=32"`
	RedirectTo    string `arg:"redirectTo" validate:"required,max=2048"`
	CodeChallenge string `arg:"codeChallenge" validate:"max=128"`
}

// OIDCStartResult is the provider's authorization URL, where the client
// sends the browser.
type OIDCStartResult struct {
	URL string `json:"url"`
}

// Spec declares V1OIDCStart.
func (a *OIDCStart) Spec() action.Spec {
	s := oidcSpec("OIDCStart", "oidc/start", "Start signing in with an identity provider", action.LoggedOut(accounts.Users.Type),
		accounts.UserUnknownOIDCProvider, errorcodes.ServiceUnavailable, errorcodes.TooManyRequests)
	s.RateClass = action.RateOIDC
	s.SameSite = true // sets the oidc-flow cookie
	return s
}

// Run starts the flow and binds it to the browser.
func (a *OIDCStart) Run(ctx context.Context, req *action.Request, in *OIDCStartArgs) (*OIDCStartResult, error) {
	return startFlow(ctx, a.Federation, a.Cookies, req, accounts.FlowStart{Provider: in.Provider, RedirectTo: in.RedirectTo,
		CodeChallenge: in.CodeChallenge})
}

// startFlow starts the flow f of the request's client, bound to the
// browser by a new value of its oidc-flow cookie (which keeps the values
// of the flows the browser started before), and answers the provider's
// authorization URL. An app's sign-in, bound by its PKCE challenge
// instead, sets no cookie.
func startFlow(ctx context.Context, fed *accounts.Federation, cookies Cookies, req *action.Request, f accounts.FlowStart) (*OIDCStartResult, error) {
	f.Client = req.Client
	f.Binding, _ = cookies.ReadFlow(req)
	st, err := fed.Start(ctx, f)
	if err != nil {
		return nil, federationError(err)
	}
	if st.Binding != "" {
		cookies.SetFlow(req, st.Binding)
	}
	return &OIDCStartResult{URL: st.URL}, nil
}

// OIDCLink starts attaching an identity-provider account to the caller:
// the flow is bound to the caller's user and session, and to the browser.
type OIDCLink struct {
	Federation *accounts.Federation
	Cookies    Cookies
}

// OIDCLinkArgs are the arguments of OIDCLink.
type OIDCLinkArgs struct {
	Provider   string `arg:"provider" mod:"trim,lower" validate:"required,max=32"`
	RedirectTo string `arg:"redirectTo" validate:"required,max=2048"`
}

// Spec declares V1OIDCLink.
func (a *OIDCLink) Spec() action.Spec {
	s := oidcSpec("OIDCLink", "oidc/link", "Start connecting an identity-provider account to yours", action.Owner(accounts.Users.Type),
		accounts.UserUnknownOIDCProvider, errorcodes.ServiceUnavailable)
	s.Reauth = action.ReauthRecent
	s.SameSite = true // sets the oidc-flow cookie
	return s
}

// Run starts the link flow.
func (a *OIDCLink) Run(ctx context.Context, req *action.Request, in *OIDCLinkArgs) (*OIDCStartResult, error) {
	return startFlow(ctx, a.Federation, a.Cookies, req, accounts.FlowStart{Provider: in.Provider, RedirectTo: in.RedirectTo,
		LinkUser: req.Caller.ID, LinkSession: req.Caller.Session})
}

// OIDCCallback is where the provider sends the browser back. It answers
// with a redirect to the flow's page: #oidc=<one-time result code> after a
// sign-in, #linked=<provider> after a link, #error=<CODE> after a failure.
// Only a state that names no flow (or one whose page is no longer
// allowed) is answered without a redirect.
type OIDCCallback struct {
	Federation *accounts.Federation
	Cookies    Cookies
}

// OIDCCallbackArgs are what the provider sends.
type OIDCCallbackArgs struct {
	Code  string `arg:"code,secret" validate:"max=4096"`
	State string `arg:"state,secret" validate:"max=256"`
	Iss   string `arg:"iss" validate:"max=2048"`
	Error string `arg:"error" validate:"max=256"`
}

// OIDCCallbackResult is the redirect of a callback.
type OIDCCallbackResult struct {
	to string
}

// Location implements action.Redirect.
func (r *OIDCCallbackResult) Location() string { return r.to }

// Spec declares V1OIDCCallback.
func (a *OIDCCallback) Spec() action.Spec {
	s := oidcSpec("OIDCCallback", "oidc/callback", "Where the identity provider sends the browser back", action.Public,
		accounts.UserInvalidOIDCState, errorcodes.TooManyRequests)
	s.Status = http.StatusFound
	s.RateClass = action.RateOIDC
	return s
}

// Run finishes the provider's part of the flow.
func (a *OIDCCallback) Run(ctx context.Context, req *action.Request, in *OIDCCallbackArgs) (*OIDCCallbackResult, error) {
	binding, _ := a.Cookies.ReadFlow(req)
	l, err := a.Federation.Callback(ctx, accounts.CallbackIn{State: in.State, Code: in.Code, Issuer: in.Iss, Error: in.Error,
		Binding: binding, Locale: req.Locale, Origin: Origin(req)})
	if err != nil {
		return nil, federationError(err)
	}
	return &OIDCCallbackResult{to: l.URL}, nil
}

// OIDCExchange trades a sign-in's one-time result code for the login.
type OIDCExchange struct {
	Federation *accounts.Federation
	Cookies    Cookies
}

// OIDCExchangeArgs are the arguments of OIDCExchange: the result code,
// and the PKCE verifier when the flow was started with a challenge.
type OIDCExchangeArgs struct {
	Code         string `arg:"code,secret" validate:"required,max=1024"`
	CodeVerifier string `arg:"codeVerifier,secret" validate:"max=256"`
	// DeviceToken is as in LoginArgs: the login completes here.
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1OIDCExchange.
func (a *OIDCExchange) Spec() action.Spec {
	c := accounts.Users.Codes
	s := oidcSpec("OIDCExchange", "oidc/exchange", "Finish signing in with an identity provider", action.LoggedOut(accounts.Users.Type),
		accounts.UserInvalidOIDCCode, c.SecondFactor.MFARequired, c.AccountInactive, errorcodes.TooManyRequests)
	s.Status = http.StatusCreated
	s.RateClass = action.RateOIDC
	s.SameSite = true // sets the refresh cookie
	return s
}

// Run logs in, or answers MFA_REQUIRED (the code is spent either way).
func (a *OIDCExchange) Run(ctx context.Context, req *action.Request, in *OIDCExchangeArgs) (*SessionResult, error) {
	o := OriginWithDevice(accounts.Users, a.Cookies, req, in.DeviceToken)
	binding, _ := a.Cookies.ReadFlow(req)
	iss, err := a.Federation.Exchange(ctx, in.Code, in.CodeVerifier, binding, o)
	if err != nil {
		return nil, federationError(err)
	}
	return LoginAnswer(accounts.Users, a.Cookies, req, iss), nil
}
