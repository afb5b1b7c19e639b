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

// DiscoveryMaxAge is how long a provider's discovery document is used
// before it is read again: a provider may move its endpoints or its key
// set, and says so only there.
const DiscoveryMaxAge = 24 * time.Hour

// remote is one provider and what was read of it.
type remote struct {
	p      Provider
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex
	doc      *discovered // nil until read
	readAt   time.Time   // when doc was read
	triedAt  time.Time   // the last read tried
	stale    bool        // a token named a key the set lacks: read again
	inflight *discovery
}

// discovered is a provider's discovery document as used: its endpoints,
// whether it sends iss in its authorization responses, its key set and
// the verifier of its ID tokens over that set.
type discovered struct {
	endpoint oauth2.Endpoint
	issParam bool
	keys     *keySet
	verifier *oidc.IDTokenVerifier
}

// discovery is a read of the document that concurrent requests share.
type discovery struct {
	done chan struct{}
	doc  *discovered
	err  error
}

// discover returns the provider's document, reading it when it was never
// read, when it is DiscoveryMaxAge old, or when a token named a key its
// set lacks (then at most once per KeyRefetchInterval). A failure is not
// kept: the next call reads again, or, when there is a document read
// before, uses it and reads again after KeyRefetchInterval.
func (rm *remote) discover(ctx context.Context) (*discovered, error) {
	rm.mu.Lock()
	if d := rm.doc; d != nil && !rm.due(rm.now()) {
		rm.mu.Unlock()
		return d, nil
	}
	c := rm.inflight
	if c == nil {
		c = &discovery{done: make(chan struct{})}
		rm.inflight, rm.triedAt = c, rm.now()
		go rm.read(c, rm.doc)
	}
	rm.mu.Unlock()
	select {
	case <-c.done:
		return c.doc, c.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
	}
}

// due reports whether the document (there is one) should be read again
// at now; mu is held.
func (rm *remote) due(now time.Time) bool {
	if rm.inflight != nil {
		return false
	}
	if now.Sub(rm.triedAt) < KeyRefetchInterval {
		return false // read (or tried) moments ago
	}
	return rm.stale || now.Sub(rm.readAt) >= DiscoveryMaxAge
}

// missed marks the document stale: a token named a key its set lacks,
// and the provider may have moved its key set.
func (rm *remote) missed() {
	rm.mu.Lock()
	rm.stale = true
	rm.mu.Unlock()
}

// read fetches the document for c, detached from any one request. A
// failure with an older document answers the older one.
func (rm *remote) read(c *discovery, old *discovered) {
	ctx, cancel := context.WithTimeout(oidc.ClientContext(context.Background(), rm.client), fetchTimeout)
	defer cancel()
	d, err := rm.fetch(ctx, old)
	rm.mu.Lock()
	if err == nil {
		rm.doc, rm.readAt, rm.stale = d, rm.now(), false
	}
	rm.inflight = nil
	rm.mu.Unlock()
	if err != nil && old != nil {
		d, err = old, nil
	}
	c.doc, c.err = d, err
	close(c.done)
}

// fetch reads the discovery document at the issuer (which must name
// exactly the configured issuer) and builds the verifier of the
// provider's ID tokens over its own key set: old's, when the set is at
// the same address, so that its keys and the bound on their reads carry
// over.
func (rm *remote) fetch(ctx context.Context, old *discovered) (*discovered, error) {
	op, err := oidc.NewProvider(ctx, rm.p.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %w", ErrUnavailable, rm.p.ID, err)
	}
	var meta struct {
		JWKSURL  string `json:"jwks_uri"`
		IssParam bool   `json:"authorization_response_iss_parameter_supported"`
	}
	if err := op.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, fmt.Errorf("%w: discovery of %s names no jwks_uri", ErrUnavailable, rm.p.ID)
	}
	keys := &keySet{url: meta.JWKSURL, client: rm.client, now: rm.now, miss: rm.missed}
	if old != nil && old.keys.url == meta.JWKSURL {
		keys = old.keys
	}
	algs := make([]string, len(SigningAlgorithms))
	for i, a := range SigningAlgorithms {
		algs[i] = string(a)
	}
	v := oidc.NewVerifier(rm.p.Issuer, keys, &oidc.Config{ClientID: rm.p.ClientID, SupportedSigningAlgs: algs, Now: rm.now})
	return &discovered{endpoint: op.Endpoint(), issParam: meta.IssParam, keys: keys, verifier: v}, nil
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
	email := usableEmail(c.Email)
	return &Identity{Provider: rm.p.ID, Subject: tok.Subject, Email: email, EmailVerified: email != "" && bool(c.EmailVerified),
		GivenName: c.GivenName, FamilyName: c.FamilyName, Nonce: tok.Nonce}, nil
}
