package federation

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// remote is one provider and what was read of it.
type remote struct {
	p      Provider
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex
	doc      *discovered // nil until read
	inflight *discovery
}

// discovered is a provider's discovery document as used: its endpoints
// and the verifier of its ID tokens over its key set.
type discovered struct {
	endpoint oauth2.Endpoint
	verifier *oidc.IDTokenVerifier
}

// discovery is a read of the document that concurrent requests share.
type discovery struct {
	done chan struct{}
	doc  *discovered
	err  error
}

// discover returns the provider's document, reading it when it was never
// read (a failure is not kept: the next call reads again).
func (rm *remote) discover(ctx context.Context) (*discovered, error) {
	rm.mu.Lock()
	if rm.doc != nil {
		d := rm.doc
		rm.mu.Unlock()
		return d, nil
	}
	c := rm.inflight
	if c == nil {
		c = &discovery{done: make(chan struct{})}
		rm.inflight = c
		go rm.read(c)
	}
	rm.mu.Unlock()
	select {
	case <-c.done:
		return c.doc, c.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
}

// read fetches the document for c, detached from any one request.
func (rm *remote) read(c *discovery) {
	ctx, cancel := context.WithTimeout(oidc.ClientContext(context.Background(), rm.client), fetchTimeout)
	defer cancel()
	d, err := rm.fetch(ctx)
	rm.mu.Lock()
	if err == nil {
		rm.doc = d
	}
	rm.inflight = nil
	rm.mu.Unlock()
	c.doc, c.err = d, err
	close(c.done)
}

// fetch reads the discovery document at the issuer (which must name
// exactly the configured issuer) and builds the verifier of the
// provider's ID tokens over its own key set.
func (rm *remote) fetch(ctx context.Context) (*discovered, error) {
	op, err := oidc.NewProvider(ctx, rm.p.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %w", ErrUnavailable, rm.p.ID, err)
	}
	var meta struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err := op.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, fmt.Errorf("%w: discovery of %s names no jwks_uri", ErrUnavailable, rm.p.ID)
	}
	keys := &keySet{url: meta.JWKSURL, client: rm.client, now: rm.now}
	algs := make([]string, len(SigningAlgorithms))
	for i, a := range SigningAlgorithms {
		algs[i] = string(a)
	}
	v := oidc.NewVerifier(rm.p.Issuer, keys, &oidc.Config{ClientID: rm.p.ClientID, SupportedSigningAlgs: algs, Now: rm.now})
	return &discovered{endpoint: op.Endpoint(), verifier: v}, nil
}

// verify checks an ID token and reads the identity it names.
func (rm *remote) verify(ctx context.Context, d *discovered, raw string) (*Identity, error) {
	tok, err := d.verifier.Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	var c idClaims
	if err := tok.Claims(&c); err != nil {
		return nil, fmt.Errorf("%w: claims: %w", ErrRejected, err)
	}
	if tok.Subject == "" {
		return nil, fmt.Errorf("%w: the ID token has no subject", ErrRejected)
	}
	return &Identity{Provider: rm.p.ID, Subject: tok.Subject, Email: c.Email, EmailVerified: bool(c.EmailVerified),
		GivenName: c.GivenName, FamilyName: c.FamilyName, Nonce: tok.Nonce}, nil
}
