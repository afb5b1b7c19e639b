package auth

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Defaults and limits of access tokens.
const (
	// DefaultIssuer is the iss claim when Tokens.Issuer is empty.
	DefaultIssuer = "actionkit"
	// DefaultTTL is the access-token lifetime when Tokens.TTL is zero.
	DefaultTTL = 15 * time.Minute
	// MinSecretBytes is the shortest HS256 secret Tokens accepts.
	MinSecretBytes = 32
	// MaxTokenBytes is the longest token Parse looks at; longer input is
	// rejected before any decoding. An issued token is about 300 bytes.
	MaxTokenBytes = 4096
	// ClockSkew is the leeway Parse grants on exp and iat, so that
	// instances whose clocks differ by a few seconds accept each other's
	// fresh tokens. An expired token therefore stays valid for at most
	// ClockSkew more; tokenVersion, not exp, is what revokes a token.
	ClockSkew = 30 * time.Second
)

// ErrInvalidToken is wrapped by every error Parse returns for a token it
// refuses. The wrapped reason is meant for logs, never for a client.
var ErrInvalidToken = errors.New("auth: invalid access token")

// Tokens issues and verifies HS256 access tokens. Build it with NewTokens,
// or fill the fields and let the first call validate them; do not change the
// fields after the first Issue or Parse. A Tokens is safe for concurrent use.
type Tokens struct {
	// Secret is the HS256 key, at least MinSecretBytes long.
	Secret []byte
	// Issuer is the iss claim written and required; default DefaultIssuer.
	Issuer string
	// TTL is the lifetime of an issued token; default DefaultTTL.
	TTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time

	once    sync.Once
	initErr error
	key     any // a copy of Secret, boxed once so that Parse does not allocate it
	parser  *jwt.Parser
	cache   verifiedCache
}

// Claims are the verified claims of an access token.
type Claims struct {
	// Subject is the owner's id (sub).
	Subject uuid.UUID
	// Type is the owner type (type).
	Type action.OwnerType
	// Session is the id of the session (the login) the token belongs to:
	// the sid claim. It is required.
	Session uuid.UUID
	// TokenVersion is the owner's token version when the token was issued.
	TokenVersion int64
	// Client is the client type, derived from the audience (aud).
	Client action.Client
	// IssuedAt is the iat claim, in UTC.
	IssuedAt time.Time
	// ExpiresAt is the exp claim, in UTC.
	ExpiresAt time.Time
	// Methods is the amr claim: how the session was authenticated when the
	// token was issued. Informational: the service decides from the
	// session row, never from this claim.
	Methods []string
	// AuthTime is the auth_time claim (zero when absent), informational
	// like Methods.
	AuthTime time.Time
}

// Authentication is what an access token says, for information only, of
// how its session was authenticated: the amr and auth_time claims.
type Authentication struct {
	// Methods are RFC 8176 method values, such as "pwd" and "otp".
	Methods []string
	// Time is the session's last interactive authentication.
	Time time.Time
}

// NewTokens returns a Tokens with the given secret, issuer, lifetime and
// clock; an empty issuer, a zero ttl or a nil clock take the defaults. It
// fails when the secret is shorter than MinSecretBytes or ttl is negative or
// under a second.
func NewTokens(secret []byte, issuer string, ttl time.Duration, now func() time.Time) (*Tokens, error) {
	t := &Tokens{Secret: secret, Issuer: issuer, TTL: ttl, Now: now}
	if err := t.init(); err != nil {
		return nil, err
	}
	return t, nil
}

// init applies the defaults, validates the configuration and builds the
// parser, once.
func (t *Tokens) init() error {
	t.once.Do(func() {
		switch {
		case len(t.Secret) < MinSecretBytes:
			t.initErr = fmt.Errorf("auth: token secret has %d bytes, want at least %d", len(t.Secret), MinSecretBytes)
			return
		case t.TTL != 0 && t.TTL < time.Second:
			t.initErr = fmt.Errorf("auth: token ttl %v is under a second", t.TTL)
			return
		}
		if t.Issuer == "" {
			t.Issuer = DefaultIssuer
		}
		if t.TTL == 0 {
			t.TTL = DefaultTTL
		}
		if t.Now == nil {
			t.Now = time.Now
		}
		t.key = append([]byte(nil), t.Secret...)
		t.parser = jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
			jwt.WithIssuer(t.Issuer),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(ClockSkew),
			jwt.WithTimeFunc(t.Now),
			// Canonical base64url only: a token whose last character
			// differs in the unused low bits decodes to the same bytes, and
			// would otherwise be a second valid spelling of one token.
			jwt.WithStrictDecoding(),
		)
	})
	return t.initErr
}

// Issue signs an access token for the owner id of type owner and its
// session sid, bound to client (web or app) through its audience, and
// returns it with its expiry. Any non-nil UUIDs are accepted as id and sid;
// the service's ids are version 7. The token carries no amr or auth_time
// claim: see IssueAuthenticated.
func (t *Tokens) Issue(owner action.OwnerType, id, sid uuid.UUID, tokenVersion int64, client action.Client) (token string, expiresAt time.Time, err error) {
	return t.IssueAuthenticated(owner, id, sid, tokenVersion, client, Authentication{})
}

// IssueAuthenticated is Issue with the amr and auth_time claims of how the
// session was authenticated (omitted when empty).
func (t *Tokens) IssueAuthenticated(owner action.OwnerType, id, sid uuid.UUID, tokenVersion int64, client action.Client, how Authentication) (token string, expiresAt time.Time, err error) {
	if err := t.init(); err != nil {
		return "", time.Time{}, err
	}
	switch {
	case owner == "":
		return "", time.Time{}, errors.New("auth: issue: empty owner type")
	case id == uuid.Nil:
		return "", time.Time{}, errors.New("auth: issue: nil owner id")
	case sid == uuid.Nil:
		return "", time.Time{}, errors.New("auth: issue: nil session id")
	case tokenVersion < 0:
		return "", time.Time{}, fmt.Errorf("auth: issue: negative token version %d", tokenVersion)
	case client != action.Web && client != action.App:
		return "", time.Time{}, fmt.Errorf("auth: issue: unknown client %q", client)
	}
	iat := t.Now().UTC().Truncate(time.Second)
	exp := iat.Add(t.TTL).Truncate(time.Second)
	wc := &wireClaims{
		Sub:          id.String(),
		Sid:          sid.String(),
		Type:         string(owner),
		TokenVersion: wireVersion{n: tokenVersion, set: true},
		Iat:          wireDate{jwt.NumericDate{Time: iat}},
		Exp:          wireDate{jwt.NumericDate{Time: exp}},
		Iss:          t.Issuer,
		Aud:          owner.Audience(client),
		Amr:          how.Methods,
	}
	if !how.Time.IsZero() {
		wc.AuthTime = wireDate{jwt.NumericDate{Time: how.Time.UTC().Truncate(time.Second)}}
	}
	token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, wc).SignedString(t.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("auth: issue: %w", err)
	}
	return token, exp, nil
}

// Parse verifies token as an access token of owner type owner and returns
// its claims. It checks, besides the HS256 signature: the size, iss, exp
// (required) and iat (required, not in the future) with ClockSkew leeway,
// that type equals owner, that aud is a single string naming owner and
// client web or app, that sub and sid are UUIDs and that tokenVersion is a
// non-negative integer. Every refusal wraps ErrInvalidToken.
func (t *Tokens) Parse(owner action.OwnerType, token string) (Claims, error) {
	if err := t.init(); err != nil {
		return Claims{}, err
	}
	switch {
	case token == "":
		return Claims{}, invalid(errors.New("empty token"))
	case len(token) > MaxTokenBytes:
		return Claims{}, invalid(fmt.Errorf("token has %d bytes, limit %d", len(token), MaxTokenBytes))
	case owner == "":
		return Claims{}, invalid(errors.New("empty owner type"))
	}
	if cl, ok := t.cache.get(token, t.Now()); ok {
		if cl.Type != owner {
			return Claims{}, invalid(fmt.Errorf("type %q, want %q", cl.Type, owner))
		}
		return cl, nil
	}
	var wc wireClaims
	if _, err := t.parser.ParseWithClaims(token, &wc, t.keyfunc); err != nil {
		return Claims{}, invalid(err)
	}
	cl, err := wc.verified(owner)
	if err == nil {
		t.cache.put(token, cl)
	}
	return cl, err
}

// keyfunc hands the parser the boxed secret without allocating.
func (t *Tokens) keyfunc(*jwt.Token) (any, error) { return t.key, nil }

func invalid(reason error) error { return fmt.Errorf("%w: %w", ErrInvalidToken, reason) }

// wireClaims is the JSON payload of an access token. aud is a plain string,
// so an array audience fails to decode and the token is refused.
type wireClaims struct {
	Sub          string      `json:"sub"`
	Sid          string      `json:"sid"`
	Type         string      `json:"type"`
	TokenVersion wireVersion `json:"tokenVersion"`
	Iat          wireDate    `json:"iat,omitzero"`
	Exp          wireDate    `json:"exp,omitzero"`
	Nbf          wireDate    `json:"nbf,omitzero"` // never issued, honoured if present
	Iss          string      `json:"iss"`
	Aud          string      `json:"aud"`
	Amr          []string    `json:"amr,omitempty"`
	AuthTime     wireDate    `json:"auth_time,omitzero"`
}

// verified checks the claims the jwt validator does not know and converts
// them.
func (c *wireClaims) verified(owner action.OwnerType) (Claims, error) {
	if c.Type != string(owner) {
		return Claims{}, invalid(fmt.Errorf("type %q, want %q", c.Type, owner))
	}
	client, ok := audienceClient(owner, c.Aud)
	if !ok {
		return Claims{}, invalid(fmt.Errorf("audience %q, want %s or %s",
			c.Aud, owner.Audience(action.Web), owner.Audience(action.App)))
	}
	if c.Iat.IsZero() {
		return Claims{}, invalid(errors.New("iat claim is required"))
	}
	if !c.TokenVersion.set {
		return Claims{}, invalid(errors.New("tokenVersion claim is required"))
	}
	if c.TokenVersion.n < 0 {
		return Claims{}, invalid(fmt.Errorf("negative tokenVersion %d", c.TokenVersion.n))
	}
	id, ok := claimUUID(c.Sub)
	if !ok {
		return Claims{}, invalid(errors.New("sub is not a UUID"))
	}
	sid, ok := claimUUID(c.Sid)
	if !ok {
		return Claims{}, invalid(errors.New("sid is missing or not a UUID"))
	}
	return Claims{
		Subject:      id,
		Session:      sid,
		Type:         owner,
		TokenVersion: c.TokenVersion.n,
		Client:       client,
		IssuedAt:     c.Iat.UTC(),
		ExpiresAt:    c.Exp.UTC(),
		Methods:      c.Amr,
		AuthTime:     authTime(c.AuthTime),
	}, nil
}

// authTime is the auth_time claim in UTC, zero when absent.
func authTime(d wireDate) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return d.UTC()
}

// claimUUID parses a UUID claim in its canonical 36-character form; the
// nil UUID is refused.
func claimUUID(v string) (uuid.UUID, bool) {
	if len(v) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(v)
	return id, err == nil && id != uuid.Nil
}

// audienceClient reports the client of aud when aud is
// owner.Audience(web) or owner.Audience(app), without building either.
func audienceClient(owner action.OwnerType, aud string) (action.Client, bool) {
	n := len(owner)
	if len(aud) <= n+1 || aud[:n] != string(owner) || aud[n] != '-' {
		return "", false
	}
	switch c := action.Client(aud[n+1:]); c {
	case action.Web:
		return action.Web, true
	case action.App:
		return action.App, true
	}
	return "", false
}

// GetExpirationTime implements jwt.Claims.
func (c *wireClaims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Exp.orNil(), nil }

// GetIssuedAt implements jwt.Claims.
func (c *wireClaims) GetIssuedAt() (*jwt.NumericDate, error) { return c.Iat.orNil(), nil }

// GetNotBefore implements jwt.Claims.
func (c *wireClaims) GetNotBefore() (*jwt.NumericDate, error) { return c.Nbf.orNil(), nil }

// GetIssuer implements jwt.Claims.
func (c *wireClaims) GetIssuer() (string, error) { return c.Iss, nil }

// GetSubject implements jwt.Claims.
func (c *wireClaims) GetSubject() (string, error) { return c.Sub, nil }

// GetAudience implements jwt.Claims. Parse checks the audience itself, so
// the validator never calls this.
func (c *wireClaims) GetAudience() (jwt.ClaimStrings, error) {
	if c.Aud == "" {
		return nil, nil
	}
	return jwt.ClaimStrings{c.Aud}, nil
}

// wireDate is a date claim: whole seconds since the epoch, as Issue
// writes them. It decodes without the detour through json.Number and the
// allocation jwt.NumericDate makes; a fraction, an exponent or a string
// fails to decode.
type wireDate struct{ jwt.NumericDate }

// MarshalJSON writes the date as whole seconds.
func (d wireDate) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, d.Unix(), 10), nil }

// UnmarshalJSON accepts a JSON integer; null counts as absent.
func (d *wireDate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = wireDate{}
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return errors.New("date claim is not whole seconds")
	}
	*d = wireDate{jwt.NumericDate{Time: time.Unix(n, 0)}}
	return nil
}

// orNil returns the date for the jwt validator, nil when absent.
func (d *wireDate) orNil() *jwt.NumericDate {
	if d.IsZero() {
		return nil
	}
	return &d.NumericDate
}

// wireVersion is the tokenVersion claim: a JSON integer, remembering
// whether it was present. A fraction, an exponent, a string or a value
// beyond int64 fails to decode.
type wireVersion struct {
	n   int64
	set bool
}

// MarshalJSON writes the version as a JSON integer.
func (v wireVersion) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, v.n, 10), nil }

// UnmarshalJSON accepts a JSON integer; null counts as absent.
func (v *wireVersion) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = wireVersion{}
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return errors.New("tokenVersion is not an integer")
	}
	*v = wireVersion{n: n, set: true}
	return nil
}
