package federation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Provider is an identity provider of the configuration.
type Provider struct {
	// ID names it in the API and the database: 1 to 32 of a-z and 0-9.
	ID string
	// Name is the label shown to people ("Google").
	Name string
	// Issuer is its issuer URL, exactly as its ID tokens say it.
	Issuer       string
	ClientID     string
	ClientSecret string
	// Scopes are asked for at the authorization (openid among them).
	Scopes []string
	// TrustEmail believes the provider's email_verified claim.
	TrustEmail bool
	// AllowSignup lets a sign-in with an unknown identity create a user.
	AllowSignup bool
	// AutoLink attaches an identity to the user with its e-mail address
	// when the provider is trusted, says the address is verified, and the
	// user verified it too.
	AutoLink bool
}

// The failures of a provider.
var (
	// ErrUnknownProvider: no provider of the configuration has this id.
	ErrUnknownProvider = errors.New("federation: unknown provider")
	// ErrUnavailable: the provider's discovery document could not be
	// read (the provider is down, or answers nonsense).
	ErrUnavailable = errors.New("federation: provider unavailable")
	// ErrRejected: the provider refused the code, or answered an ID token
	// that does not verify.
	ErrRejected = errors.New("federation: provider answer rejected")
	// ErrNoIssuer: an authorization response without iss from a provider
	// that says it sends one (it is ErrRejected too).
	ErrNoIssuer = fmt.Errorf("%w: the provider sends iss in its authorization responses and this one has none", ErrRejected)
)

// fetchTimeout bounds each request to a provider.
const fetchTimeout = 10 * time.Second

// Config configures a Registry.
type Config struct {
	Providers []Provider
	// RedirectURI is the callback URL registered at every provider.
	RedirectURI string
	// Client makes the requests to the providers; nil means a client
	// with a 10-second timeout.
	Client *http.Client
	// Now is the clock ID tokens expire by; nil means time.Now.
	Now func() time.Time
}

// Registry holds the configured providers and what was learnt of them.
// It is safe for concurrent use.
type Registry struct {
	cfg   Config
	byID  map[string]*remote
	order []string
}

// New returns a Registry of cfg's providers; it reads nothing yet.
func New(cfg Config) *Registry {
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: fetchTimeout}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Registry{cfg: cfg, byID: map[string]*remote{}}
	for _, p := range cfg.Providers {
		r.byID[p.ID] = &remote{p: p, client: cfg.Client, now: cfg.Now}
		r.order = append(r.order, p.ID)
	}
	return r
}

// Providers lists the configured providers, in configuration order.
func (r *Registry) Providers() []Provider {
	out := make([]Provider, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.byID[id].p)
	}
	return out
}

// Provider returns the provider id.
func (r *Registry) Provider(id string) (Provider, bool) {
	rm, ok := r.byID[id]
	if !ok {
		return Provider{}, false
	}
	return rm.p, true
}

// AuthURL returns the URL of provider id's authorization endpoint that
// starts a code flow with state, nonce and the S256 challenge of
// verifier. ErrUnavailable means the provider's discovery document could
// not be read.
func (r *Registry) AuthURL(ctx context.Context, id, state, nonce, verifier string) (string, error) {
	rm, ok := r.byID[id]
	if !ok {
		return "", ErrUnknownProvider
	}
	d, err := rm.discover(ctx)
	if err != nil {
		return "", err
	}
	conf := r.oauth(rm.p, d)
	return conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// Exchange redeems an authorization code of provider id with its PKCE
// verifier and returns the identity its verified ID token names. iss is
// the authorization response's iss parameter (the caller compares it with
// the issuer when present); a provider whose discovery document says it
// sends one (authorization_response_iss_parameter_supported) must have,
// so a response without it is refused before the code is redeemed. The
// nonce is the caller's to check. ErrUnavailable means the discovery
// document could not be read, ErrRejected that the response lacks its
// iss, or that the provider refused the code or answered a token that
// does not verify.
func (r *Registry) Exchange(ctx context.Context, id, code, verifier, iss string) (*Identity, error) {
	rm, ok := r.byID[id]
	if !ok {
		return nil, ErrUnknownProvider
	}
	d, err := rm.discover(ctx)
	if err != nil {
		return nil, err
	}
	if d.issParam && iss == "" {
		return nil, ErrNoIssuer
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, r.cfg.Client), fetchTimeout)
	defer cancel()
	tok, err := r.oauth(rm.p, d).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("%w: token endpoint: %w", ErrRejected, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("%w: no id_token in the token answer", ErrRejected)
	}
	return rm.verify(ctx, d, raw)
}

func (r *Registry) oauth(p Provider, d *discovered) *oauth2.Config {
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, Endpoint: d.endpoint,
		RedirectURL: r.cfg.RedirectURI, Scopes: slices.Clone(p.Scopes)}
}
