package jwks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
)

// Defaults of Config.
const (
	// DefaultMinRefetch is the least time between two fetches of the key
	// set caused by unknown kids.
	DefaultMinRefetch = time.Minute
	// DefaultMaxAge is how long a fetched set is used before it is
	// fetched again in the background (the server's Cache-Control max-age).
	DefaultMaxAge = 5 * time.Minute
	// DefaultTimeout bounds one fetch when Config.HTTPClient is nil.
	DefaultTimeout = 10 * time.Second
)

// Config configures a Verifier.
type Config struct {
	// URL is the key set's address, such as
	// https://auth.example.com/.well-known/jwks.json. Required.
	URL string
	// Issuer is the iss claim tokens must carry: the server's
	// TOKEN_ISSUER. Default auth.DefaultIssuer.
	Issuer string
	// Algorithms are the algorithms accepted, from auth.EdDSA and
	// auth.ES256; default both. A key of the set whose alg is not listed
	// is skipped. HS256 cannot be verified with a public key set and is
	// refused.
	Algorithms []string
	// HTTPClient fetches the set; default a client with DefaultTimeout.
	HTTPClient *http.Client
	// MinRefetch is the least time between two fetches caused by unknown
	// kids; default DefaultMinRefetch.
	MinRefetch time.Duration
	// MaxAge is the age after which the set is fetched again in the
	// background; default DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock of the key cache and of the token checks; default
	// time.Now.
	Now func() time.Time
	// Logger receives what happens to the key set: fetched (INFO when the
	// kids changed), a key skipped, a fetch failed (WARN, or ERROR when no
	// key is cached). Default: discarded.
	Logger *slog.Logger
}

// init validates cfg and fills in the defaults.
func (c *Config) init() error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("jwks: URL %q is not an http(s) URL", c.URL)
	}
	if c.Algorithms == nil {
		c.Algorithms = []string{auth.EdDSA, auth.ES256}
	}
	if len(c.Algorithms) == 0 {
		return errors.New("jwks: no algorithm is accepted")
	}
	for _, a := range c.Algorithms {
		if !auth.Asymmetric(a) {
			return fmt.Errorf("jwks: algorithm %q cannot be verified with a public key; want %s or %s", a, auth.EdDSA, auth.ES256)
		}
	}
	c.Algorithms = slices.Clone(c.Algorithms)
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	if c.MinRefetch <= 0 {
		c.MinRefetch = DefaultMinRefetch
	}
	if c.MaxAge <= 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Verifier verifies the access tokens of an actionkit server in another
// service, with the public keys the server publishes: the signature (an
// accepted algorithm, the key the kid names, of that key's algorithm),
// iss, aud (the owner type and a client, web or app), type, exp and iat
// with auth.ClockSkew of leeway, sub, sid and tokenVersion, exactly as the
// server does. It cannot know that a session ended before its token
// expires: a service that must, asks the server (or its database) about
// the session, as auth.Authenticator's Loader does.
type Verifier struct {
	keys   *Keys
	tokens *auth.Tokens
}

// New returns a Verifier for cfg. It fetches nothing yet: call Refresh to
// fail early when the key set cannot be read, or let the first token
// fetch it.
func New(cfg Config) (*Verifier, error) {
	keys, err := NewKeys(cfg)
	if err != nil {
		return nil, err
	}
	tokens := &auth.Tokens{Keys: keys, Algorithms: keys.cfg.Algorithms, Issuer: cfg.Issuer, Now: keys.cfg.Now}
	if err := tokens.Validate(); err != nil {
		return nil, err
	}
	return &Verifier{keys: keys, tokens: tokens}, nil
}

// Verify checks token as an access token of owner type owner (such as
// "user") and returns its claims. Every refusal wraps auth.ErrInvalidToken.
func (v *Verifier) Verify(ctx context.Context, owner action.OwnerType, token string) (auth.Claims, error) {
	return v.tokens.ParseContext(ctx, owner, token)
}

// Tokens returns the verifier's auth.Tokens, which only verifies, for an
// auth.Authenticator.
func (v *Verifier) Tokens() *auth.Tokens { return v.tokens }

// Keys returns the verifier's key cache.
func (v *Verifier) Keys() *Keys { return v.keys }

// Refresh fetches the key set now; see Keys.Refresh.
func (v *Verifier) Refresh(ctx context.Context) error { return v.keys.Refresh(ctx) }
