// Package accesstoken verifies OAuth 2.0 access tokens in the JWT profile
// of RFC 9068, as an authorization server such as actionkit's (CONTRACT
// §19) issues them, for a resource server that accepts them (§20).
//
// A Verifier checks a token exactly: an algorithm of the allow-list
// (EdDSA and ES256 by default; never none or HS256), the header typ
// "at+jwt" or "application/at+jwt", the key its kid names (of that key's
// own algorithm), iss equal to the configured issuer, aud naming the
// expected resource (compared after WHATWG URL serialization), and exp and
// iat with a leeway of auth.ClockSkew. The keys come from an
// auth.KeySource: a jwks.Keys over the authorization server's key set for
// another service (fetched, cached, refetched on an unknown kid), or the
// server's own keys in process.
//
// A signature proves who issued a token, not that its session is still
// live: a resource server that must see a revocation at once asks about
// the token's sid, as the framework's OAuthSessions hook does.
package accesstoken

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/actionkit/actionkit/auth"
)

// The header typ values of RFC 9068 access tokens.
const (
	TypeAccessToken     = "at+jwt"
	TypeAccessTokenMIME = "application/at+jwt"
)

// ErrInvalidToken is wrapped by every refusal of Verify. The wrapped reason
// is meant for logs, never for a client.
var ErrInvalidToken = errors.New("accesstoken: invalid access token")

// Config configures a Verifier.
type Config struct {
	// Issuer is the authorization server's issuer, which the iss claim
	// must equal exactly. Required.
	Issuer string
	// Keys finds the key a token's kid names. Required.
	Keys auth.KeySource
	// Algorithms are the accepted algorithms, from auth.EdDSA and
	// auth.ES256; default both.
	Algorithms []string
	// Leeway is granted on exp and iat; default auth.ClockSkew.
	Leeway time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Token is a verified access token.
type Token struct {
	// Issuer is iss, Subject sub (the user id, or the client_id of a
	// client_credentials token), ClientID client_id.
	Issuer, Subject, ClientID string
	// Audience is aud, as the token carries it.
	Audience []string
	// Scopes are the scope claim's space-separated values.
	Scopes []string
	// SessionID is sid: the session of a user's token, "" for a client's.
	SessionID string
	// ID is jti.
	ID string
	// IssuedAt, ExpiresAt and AuthTime (zero when absent) are iat, exp and
	// auth_time.
	IssuedAt, ExpiresAt, AuthTime time.Time
	// KeyID is the kid of the key that verified the token.
	KeyID string
}

// HasScopes reports whether the token's scope holds every one of scopes.
func (t *Token) HasScopes(scopes []string) bool {
	for _, s := range scopes {
		if !slices.Contains(t.Scopes, s) {
			return false
		}
	}
	return true
}

// Verifier verifies access tokens; it is safe for concurrent use.
type Verifier struct {
	cfg    Config
	parser *jwt.Parser
	cache  verifiedCache
}

// New returns a Verifier for cfg, or an error naming what is wrong with it.
func New(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("accesstoken: no issuer")
	}
	if cfg.Keys == nil {
		return nil, errors.New("accesstoken: no keys")
	}
	if cfg.Algorithms == nil {
		cfg.Algorithms = []string{auth.EdDSA, auth.ES256}
	}
	if len(cfg.Algorithms) == 0 {
		return nil, errors.New("accesstoken: no algorithm is accepted")
	}
	for _, a := range cfg.Algorithms {
		if !auth.Asymmetric(a) {
			return nil, fmt.Errorf("accesstoken: algorithm %q is not accepted; want %s or %s", a, auth.EdDSA, auth.ES256)
		}
	}
	cfg.Algorithms = slices.Clone(cfg.Algorithms)
	if cfg.Leeway <= 0 {
		cfg.Leeway = auth.ClockSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := jwt.NewParser(
		jwt.WithValidMethods(cfg.Algorithms),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithStrictDecoding(),
	)
	return &Verifier{cfg: cfg, parser: p}, nil
}

// Issuer is the issuer the Verifier requires.
func (v *Verifier) Issuer() string { return v.cfg.Issuer }

// wireClaims are the claims of an RFC 9068 access token.
type wireClaims struct {
	jwt.RegisteredClaims
	ClientID string           `json:"client_id"`
	Scope    string           `json:"scope"`
	SID      string           `json:"sid"`
	AuthTime *jwt.NumericDate `json:"auth_time,omitempty"`
}

// Verify checks token and that its aud names resource (both compared in
// their WHATWG URL serialization), and returns its claims, which the
// caller must not modify: a token verified before is answered from a
// cache, repeating the checks that depend on the time, the resource and
// the published keys. Every refusal
// wraps ErrInvalidToken; a key source that could not find out whether it
// holds the token's kid (an error not wrapping auth.ErrUnknownKey) is no
// refusal, and its error is returned as it is.
func (v *Verifier) Verify(ctx context.Context, token, resource string) (*Token, error) {
	want, ok := ResourceURI(resource)
	if !ok {
		return nil, fmt.Errorf("accesstoken: the expected resource %q is not an absolute http(s) URI", resource)
	}
	if token == "" || len(token) > auth.MaxTokenBytes {
		return nil, invalid(fmt.Errorf("token of %d bytes", len(token)))
	}
	if tok, ok := v.cache.get(token, v.cfg.Now(), v.cfg.Leeway); ok {
		return v.recheck(ctx, tok, want)
	}
	tok, err := v.verify(ctx, token, want)
	if err == nil {
		v.cache.put(token, tok)
	}
	return tok, err
}

// recheck applies to a cached token what may differ since it was
// verified: the resource asked for, and that its key is still published.
func (v *Verifier) recheck(ctx context.Context, tok *Token, want string) (*Token, error) {
	if !namesResource(tok.Audience, want) {
		return nil, invalid(fmt.Errorf("aud %q does not name %s", tok.Audience, want))
	}
	if _, err := v.cfg.Keys.VerifyKey(ctx, tok.KeyID); err != nil {
		if !errors.Is(err, auth.ErrUnknownKey) {
			return nil, err
		}
		return nil, invalid(err)
	}
	return tok, nil
}

// namesResource reports whether one of aud is want, compared in WHATWG
// URL serialization.
func namesResource(aud []string, want string) bool {
	return slices.ContainsFunc(aud, func(a string) bool {
		got, ok := ResourceURI(a)
		return ok && got == want
	})
}

// verify checks a token not seen before.
func (v *Verifier) verify(ctx context.Context, token, want string) (*Token, error) {
	var failure error
	var wc wireClaims
	parsed, err := v.parser.ParseWithClaims(token, &wc, func(t *jwt.Token) (any, error) {
		typ, _ := t.Header["typ"].(string)
		if !strings.EqualFold(typ, TypeAccessToken) && !strings.EqualFold(typ, TypeAccessTokenMIME) {
			return nil, fmt.Errorf("header typ %q is not %s", typ, TypeAccessToken)
		}
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("no kid")
		}
		k, err := v.cfg.Keys.VerifyKey(ctx, kid)
		if err != nil {
			if !errors.Is(err, auth.ErrUnknownKey) {
				failure = err
			}
			return nil, err
		}
		if k.Alg != t.Method.Alg() {
			return nil, fmt.Errorf("kid %s names an %s key; the token says %s", kid, k.Alg, t.Method.Alg())
		}
		return k.Public, nil
	})
	if failure != nil {
		return nil, failure
	}
	if err != nil {
		return nil, invalid(err)
	}
	switch {
	case wc.Subject == "":
		return nil, invalid(errors.New("no sub"))
	case wc.ClientID == "":
		return nil, invalid(errors.New("no client_id"))
	case wc.IssuedAt == nil:
		return nil, invalid(errors.New("no iat"))
	}
	if !namesResource(wc.Audience, want) {
		return nil, invalid(fmt.Errorf("aud %q does not name %s", []string(wc.Audience), want))
	}
	tok := &Token{
		Issuer: wc.Issuer, Subject: wc.Subject, ClientID: wc.ClientID, Audience: wc.Audience,
		Scopes: strings.Fields(wc.Scope), SessionID: wc.SID, ID: wc.ID,
		IssuedAt: wc.IssuedAt.UTC(), ExpiresAt: wc.ExpiresAt.UTC(),
	}
	if wc.AuthTime != nil {
		tok.AuthTime = wc.AuthTime.UTC()
	}
	tok.KeyID, _ = parsed.Header["kid"].(string)
	return tok, nil
}

func invalid(reason error) error { return fmt.Errorf("%w: %w", ErrInvalidToken, reason) }

// ResourceURI returns the WHATWG URL serialization of an absolute http(s)
// URI: scheme and host lower-cased, the default port dropped, an empty
// path written as "/", dot segments removed; and whether raw is such a
// URI (no userinfo, no fragment). Resource indicators are compared in
// this form, so https://Api.example.com:443 names https://api.example.com/.
func ResourceURI(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" ||
		u.User != nil || u.Fragment != "" || strings.Contains(raw, "#") || u.Opaque != "" {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u = (&url.URL{}).ResolveReference(u)
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u.String(), true
}
