package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// ClockSkew is the leeway Parse allows on exp and iat. It lets
	// servers whose clocks differ by a few seconds accept each other's
	// tokens. An expired token thus lives up to ClockSkew longer, which is
	// harmless: tokenVersion, not exp, revokes a token.
	ClockSkew = 30 * time.Second
)

// ErrInvalidToken is wrapped by every error Parse returns for a token it
// refuses. The wrapped reason is meant for logs, never for a client.
var ErrInvalidToken = errors.New("auth: invalid access token")

// Tokens issues and verifies access tokens. It signs with HS256 under a
// shared secret, or with EdDSA or ES256 under the keys of a KeySource,
// named by their kid. Build it with NewTokens, or fill the fields and let
// the first call check them; the fields must not change after the first
// Issue or Parse. A Tokens is safe for concurrent use.
//
// The configuration (Algorithms) decides which algorithms a token may
// carry; the token's own header never does. An HS256 token is verified
// with the secret only, an EdDSA or ES256 token only with the key its kid
// names, and only under that key's algorithm.
type Tokens struct {
	// Secret is the HS256 key, at least MinSecretBytes long. It may be
	// empty when Keys is set, and HS256 tokens are then refused. Kept
	// after a switch to EdDSA or ES256, it still verifies the HS256 tokens
	// issued before the switch (when Keys implements SignedSince).
	Secret []byte
	// Alg is the algorithm of issued tokens: HS256, EdDSA or ES256.
	// EdDSA and ES256 sign with Keys.SigningKey(), and the key's own Alg
	// is written. Empty means HS256 when Secret is set; without a Secret
	// the Tokens only verifies.
	Alg string
	// Keys holds the asymmetric keys; nil when only HS256 is used.
	Keys KeySource
	// Algorithms are the algorithms a token may carry. Default: HS256 when
	// Secret is set, and EdDSA and ES256 when Keys is set.
	Algorithms []string
	// Issuer is the iss claim written and required; default DefaultIssuer.
	Issuer string
	// TTL is the lifetime of an issued token; default DefaultTTL.
	TTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time

	// uncached makes every Parse verify the token, for the benchmarks
	// that compare the algorithms' own cost.
	uncached bool

	once    sync.Once
	initErr error
	key     any // a copy of Secret, boxed once so that Parse does not allocate it
	macs    macPool
	parser  *jwt.Parser
	cache   verifiedCache
}

// Claims are the verified claims of an access token.
type Claims struct {
	// Subject is the owner's id (sub).
	Subject uuid.UUID
	// Type is the owner type (type).
	Type action.OwnerType
	// SessionID is the id of the session (the login) the token belongs to:
	// the sid claim. It is required.
	SessionID uuid.UUID
	// TokenVersion is the owner's token version when the token was issued.
	TokenVersion int64
	// Client is the client type, derived from the audience (aud).
	Client action.Client
	// IssuedAt is the iat claim, in UTC.
	IssuedAt time.Time
	// ExpiresAt is the exp claim, in UTC.
	ExpiresAt time.Time
	// KeyID is the kid of the key that verified the token; empty for an
	// HS256 token.
	KeyID string
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

// NewTokens returns an HS256 Tokens with the given secret, issuer, lifetime
// and clock; an empty issuer, a zero ttl or a nil clock take the defaults.
// It fails when the secret is shorter than MinSecretBytes or ttl is
// negative or under a second.
func NewTokens(secret []byte, issuer string, ttl time.Duration, now func() time.Time) (*Tokens, error) {
	t := &Tokens{Secret: secret, Issuer: issuer, TTL: ttl, Now: now}
	if err := t.init(); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate applies the defaults and validates the configuration, as the
// first Issue or Parse would; it lets a program fail at start instead.
func (t *Tokens) Validate() error { return t.init() }

// init applies the defaults, validates the configuration and builds the
// parser, once.
func (t *Tokens) init() error {
	t.once.Do(func() {
		if t.initErr = t.validate(); t.initErr != nil {
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
		t.macs.key = t.key.([]byte)
		t.parser = jwt.NewParser(
			jwt.WithValidMethods(t.Algorithms),
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

// validate checks the secret, the algorithms and the lifetime, and fills
// in the default Alg and Algorithms.
func (t *Tokens) validate() error {
	switch {
	case len(t.Secret) > 0 && len(t.Secret) < MinSecretBytes, len(t.Secret) == 0 && t.Keys == nil:
		return fmt.Errorf("auth: token secret has %d bytes, want at least %d", len(t.Secret), MinSecretBytes)
	case t.TTL != 0 && t.TTL < time.Second:
		return fmt.Errorf("auth: token ttl %v is under a second", t.TTL)
	case t.Alg == "" && len(t.Secret) > 0:
		t.Alg = HS256
	case t.Alg == HS256 && len(t.Secret) == 0:
		return errors.New("auth: HS256 tokens are issued but there is no secret")
	case Asymmetric(t.Alg) && t.Keys == nil:
		return fmt.Errorf("auth: %s tokens are issued but there are no keys", t.Alg)
	case t.Alg != "" && t.Alg != HS256 && !Asymmetric(t.Alg):
		return fmt.Errorf("auth: unknown algorithm %q; want %s, %s or %s", t.Alg, HS256, EdDSA, ES256)
	}
	if t.Algorithms == nil {
		if len(t.Secret) > 0 {
			t.Algorithms = append(t.Algorithms, HS256)
		}
		if t.Keys != nil {
			t.Algorithms = append(t.Algorithms, EdDSA, ES256)
		}
	}
	t.Algorithms = slices.Clone(t.Algorithms)
	return t.checkAlgorithms(t.Algorithms)
}

// Issue signs an access token and returns it with its expiry. The token
// names the owner (its type and id), its session (the sid claim) and its
// token version, and is bound to client (web or app) by its audience. An
// asymmetric token carries the kid of its signing key. The token has no
// amr or auth_time claim; IssueAuthenticated adds them.
func (t *Tokens) Issue(owner action.OwnerType, id, sessionID uuid.UUID, tokenVersion int64, client action.Client) (token string, expiresAt time.Time, err error) {
	return t.IssueAuthenticated(owner, id, sessionID, tokenVersion, client, Authentication{})
}

// IssueAuthenticated is Issue with the amr and auth_time claims of how the
// session was authenticated (omitted when empty).
func (t *Tokens) IssueAuthenticated(owner action.OwnerType, id, sessionID uuid.UUID, tokenVersion int64, client action.Client, how Authentication) (token string, expiresAt time.Time, err error) {
	if err := t.init(); err != nil {
		return "", time.Time{}, err
	}
	switch {
	case owner == "":
		return "", time.Time{}, errors.New("auth: issue: empty owner type")
	case id == uuid.Nil:
		return "", time.Time{}, errors.New("auth: issue: nil owner id")
	case sessionID == uuid.Nil:
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
		Sid:          sessionID.String(),
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
	token, err = t.sign(wc)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("auth: issue: %w", err)
	}
	return token, exp, nil
}

// sign signs the claims with the secret, or with the signing key of Keys
// under that key's own algorithm and kid.
func (t *Tokens) sign(wc *wireClaims) (string, error) {
	switch {
	case t.Alg == HS256:
		return t.signHS256(wc)
	case t.Alg == "":
		return "", errors.New("this Tokens only verifies")
	}
	k, err := t.Keys.SigningKey()
	if err != nil {
		return "", err
	}
	if k.Private == nil {
		return "", fmt.Errorf("key %s has no private part: %w", k.ID, ErrNoSigningKey)
	}
	if !Asymmetric(k.Alg) {
		return "", fmt.Errorf("key %s is an %s key, not one of access tokens", k.ID, k.Alg)
	}
	return signAsymmetric(k, wc)
}

// Parse verifies token as an access token of owner type owner and returns
// its claims; see ParseContext.
func (t *Tokens) Parse(owner action.OwnerType, token string) (Claims, error) {
	return t.ParseContext(context.Background(), owner, token)
}

// ParseContext verifies token as an access token of owner type owner and
// returns its claims. ctx bounds a KeySource that has to look a kid up.
//
// Besides the signature (an accepted algorithm, with the secret or the key
// the kid names) it checks the size; iss; exp and iat, both required and
// with ClockSkew leeway; that type equals owner; that aud is one string
// naming owner and client web or app; that sub and sid are UUIDs; and that
// tokenVersion is a non-negative integer.
//
// Every refusal wraps ErrInvalidToken. A KeySource that cannot tell
// whether it has the kid (an error not wrapping ErrUnknownKey) is not a
// refusal: its error is returned unchanged.
func (t *Tokens) ParseContext(ctx context.Context, owner action.OwnerType, token string) (Claims, error) {
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
	if cl, ok := t.cache.get(token, t.Now()); ok && !t.uncached {
		return t.recheck(ctx, owner, cl)
	}
	var wc wireClaims
	keyfunc := t.keyfunc
	if t.Keys != nil {
		keyfunc = func(tok *jwt.Token) (any, error) { return t.keyFor(ctx, tok) }
	}
	parsed, err := t.parser.ParseWithClaims(token, &wc, keyfunc)
	if err != nil {
		if f, ok := errors.AsType[*keySourceFailure](err); ok {
			return Claims{}, f.err
		}
		return Claims{}, invalid(err)
	}
	cl, err := wc.verified(owner)
	if err == nil {
		cl.KeyID, _ = parsed.Header["kid"].(string)
		t.cache.put(token, cl)
	}
	return cl, err
}

// recheck applies to a cached token what may have changed since it was
// verified: the owner type asked for, and that its key is still published.
func (t *Tokens) recheck(ctx context.Context, owner action.OwnerType, cl Claims) (Claims, error) {
	if cl.Type != owner {
		return Claims{}, invalid(fmt.Errorf("type %q, want %q", cl.Type, owner))
	}
	if cl.KeyID != "" {
		if _, err := t.Keys.VerifyKey(ctx, cl.KeyID); err != nil {
			if !errors.Is(err, ErrUnknownKey) {
				return Claims{}, err
			}
			return Claims{}, invalid(err)
		}
	}
	return cl, nil
}

// keyfunc hands the parser the boxed secret without allocating, for a
// Tokens that knows HS256 only.
func (t *Tokens) keyfunc(tok *jwt.Token) (any, error) {
	if _, ok := tok.Header["kid"]; ok {
		return nil, errors.New("an HS256 token carries no kid")
	}
	return t.key, nil
}

// keyFor returns the key that verifies tok, whose alg the parser has
// already accepted. For HS256 that is the secret, refused to a token with
// a kid or issued after a switch to keys (see SignedSince); otherwise it
// is the key the kid names, which must be of the token's algorithm.
func (t *Tokens) keyFor(ctx context.Context, tok *jwt.Token) (any, error) {
	alg := tok.Method.Alg()
	if alg == HS256 {
		if err := t.issuedBeforeSwitch(tok); err != nil {
			return nil, err
		}
		return t.keyfunc(tok)
	}
	kid, _ := tok.Header["kid"].(string)
	if kid == "" {
		return nil, fmt.Errorf("an %s token without a kid", alg)
	}
	k, err := t.Keys.VerifyKey(ctx, kid)
	if err != nil && !errors.Is(err, ErrUnknownKey) {
		return nil, &keySourceFailure{err}
	}
	if err != nil {
		return nil, err
	}
	if k.Alg != alg {
		return nil, fmt.Errorf("kid %s names an %s key; the token says %s", kid, k.Alg, alg)
	}
	return k.Public, nil
}

// invalid wraps reason as a refusal of the token.
func invalid(reason error) error { return fmt.Errorf("%w: %w", ErrInvalidToken, reason) }

// keySourceFailure carries a KeySource's failure through the JWT parser.
// Such a failure (the key database unreachable, say) is not a refusal of
// the token, so Parse returns it unchanged: the request is answered as
// the failure says (503 when a dependency is down) instead of as an
// anonymous one, which would make the client drop a valid token.
type keySourceFailure struct{ err error }

func (f *keySourceFailure) Error() string { return f.err.Error() }
func (f *keySourceFailure) Unwrap() error { return f.err }
