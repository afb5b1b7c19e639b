package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
)

// ErrUnknownOwner is returned by a Loader when the owner does not exist or
// may not authenticate (soft-deleted, inactive). The request is then
// anonymous.
var ErrUnknownOwner = errors.New("auth: unknown owner")

// ErrSessionEnded is returned by a Loader when the token's session is not
// live: logged out, revoked, expired, unknown, or another owner's. The
// request is then anonymous.
var ErrSessionEnded = errors.New("auth: session ended")

// Reasons for an anonymous request that are known before any token is
// parsed.
var (
	errSeveralHeaders  = errors.New("auth: several authorization headers")
	errMalformedHeader = errors.New("auth: authorization header is not <scheme> <token>")
	errUnknownScheme   = errors.New("auth: unknown authorization scheme")
)

// Principal is what a Loader knows of an owner.
type Principal struct {
	// TokenVersion is the owner's current token version; a token carrying
	// another one is refused.
	TokenVersion int64
	// Locale is the owner's preferred locale.
	Locale string
	// Record is the loaded owner record, passed on as action.Caller.Record.
	Record any
	// SessionExpiresAt is when the token's session expires.
	SessionExpiresAt time.Time
	// Assurance is how the token's session was authenticated, read from
	// the session itself (never from the token's claims).
	Assurance action.Assurance
}

// Loader loads the owner with id and checks, in the same round trip, that
// its session (the token's sid) is live. With needs.Assurance it also
// reads how the session was authenticated (Principal.Assurance). It
// returns ErrUnknownOwner (possibly wrapped) when the owner does not exist
// or may not authenticate, ErrSessionEnded when the session is not live,
// and any other error for an infrastructure failure.
type Loader func(ctx context.Context, id, sessionID uuid.UUID, needs action.Needs) (Principal, error)

// Owner registers an owner type with an Authenticator.
type Owner struct {
	// Type is the owner type; its scheme, Type.Scheme(), selects it.
	Type action.OwnerType
	// Load loads owners of this type.
	Load Loader
}

// Authenticator finds the caller of a request from its Authorization
// header. The header reads "<scheme> <token>", where the scheme (in any
// case) names a registered owner type: "jwt-user", "jwt-admin". It is safe
// for concurrent use once built.
//
// A credential that does not lead to a current owner leaves the request
// anonymous: the caller and the error are both nil. That covers no header,
// several headers, a malformed header, an unknown scheme, a token
// Tokens.Parse refuses, an unknown owner and a stale tokenVersion.
//
// An error is returned only when a Loader fails for another reason, or the
// KeySource cannot tell whether it has the token's kid. It is wrapped with
// %w so that the framework can still classify it: an unreachable database
// (marked by dependency.Unavailable) is answered 503 SERVICE_UNAVAILABLE,
// anything else 500.
type Authenticator struct {
	// Rejected, when set, is called with the reason whenever a presented
	// credential leaves the request anonymous (not when no header is
	// present), for logging or metrics. Reasons never contain the token.
	// Set it before first use.
	Rejected func(ctx context.Context, reason error)

	tokens *Tokens
	owners []registered
}

// registered is an owner type as the Authenticator keeps it.
type registered struct {
	typ    action.OwnerType
	scheme string
	load   Loader
}

// NewAuthenticator returns an Authenticator verifying tokens with tokens
// for the given owner types. It panics on a programming error: nil or
// invalid tokens, an empty owner type, a nil loader, a type given twice.
func NewAuthenticator(tokens *Tokens, owners ...Owner) *Authenticator {
	if tokens == nil {
		panic("auth: NewAuthenticator: nil tokens")
	}
	if err := tokens.init(); err != nil {
		panic("auth: NewAuthenticator: " + err.Error())
	}
	a := &Authenticator{tokens: tokens}
	for _, o := range owners {
		switch {
		case o.Type == "":
			panic("auth: NewAuthenticator: empty owner type")
		case o.Load == nil:
			panic(fmt.Sprintf("auth: NewAuthenticator: owner type %q has no loader", o.Type))
		case a.byType(o.Type) != nil:
			panic(fmt.Sprintf("auth: NewAuthenticator: owner type %q given twice", o.Type))
		}
		a.owners = append(a.owners, registered{typ: o.Type, scheme: o.Type.Scheme(), load: o.Load})
	}
	return a
}

// Authenticate returns the caller identified by r's Authorization header,
// or nil for an anonymous request, its owner loaded with needs. It fails
// only when a Loader fails.
func (a *Authenticator) Authenticate(ctx context.Context, r *http.Request, needs action.Needs) (*action.Caller, error) {
	values := r.Header["Authorization"]
	switch len(values) {
	case 0:
		return nil, nil
	case 1:
	default:
		return a.reject(ctx, errSeveralHeaders)
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || token == "" || strings.ContainsAny(token, " \t") {
		return a.reject(ctx, errMalformedHeader)
	}
	o := a.byScheme(scheme)
	if o == nil {
		return a.reject(ctx, errUnknownScheme)
	}
	return a.verify(ctx, o, token, needs)
}

// Verify resolves a bare token of owner type owner, as presented in a
// socket handshake, with the same checks and results as Authenticate (no
// Assurance is read). It fails when owner is not registered, a programming
// error.
func (a *Authenticator) Verify(ctx context.Context, owner action.OwnerType, token string) (*action.Caller, error) {
	o := a.byType(owner)
	if o == nil {
		return nil, fmt.Errorf("auth: owner type %q is not registered", owner)
	}
	return a.verify(ctx, o, token, action.Needs{})
}

// verify parses token as o's, loads its owner and session, and checks the
// token version against the owner's current one.
func (a *Authenticator) verify(ctx context.Context, o *registered, token string, needs action.Needs) (*action.Caller, error) {
	claims, err := a.tokens.ParseContext(ctx, o.typ, token)
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			return a.reject(ctx, err)
		}
		return nil, err
	}
	p, err := o.load(ctx, claims.Subject, claims.SessionID, needs)
	if errors.Is(err, ErrUnknownOwner) || errors.Is(err, ErrSessionEnded) {
		return a.reject(ctx, fmt.Errorf("%s %s: %w", o.typ, claims.Subject, err))
	}
	if err != nil {
		return nil, fmt.Errorf("auth: load %s %s: %w", o.typ, claims.Subject, err)
	}
	if p.TokenVersion != claims.TokenVersion {
		return a.reject(ctx, fmt.Errorf("auth: %s %s: token version %d, current %d",
			o.typ, claims.Subject, claims.TokenVersion, p.TokenVersion))
	}
	return &action.Caller{
		Type:             o.typ,
		ID:               claims.Subject,
		Client:           claims.Client,
		TokenVersion:     claims.TokenVersion,
		SessionID:        claims.SessionID,
		SessionExpiresAt: p.SessionExpiresAt,
		Assurance:        p.Assurance,
		Locale:           p.Locale,
		Record:           p.Record,
	}, nil
}

// reject reports reason and leaves the request anonymous.
func (a *Authenticator) reject(ctx context.Context, reason error) (*action.Caller, error) {
	if a.Rejected != nil {
		a.Rejected(ctx, reason)
	}
	return nil, nil
}

// byScheme returns the owner type whose scheme is scheme, in any case.
func (a *Authenticator) byScheme(scheme string) *registered {
	for i := range a.owners {
		if strings.EqualFold(a.owners[i].scheme, scheme) {
			return &a.owners[i]
		}
	}
	return nil
}

// byType returns the registered owner type t, or nil.
func (a *Authenticator) byType(t action.OwnerType) *registered {
	for i := range a.owners {
		if a.owners[i].typ == t {
			return &a.owners[i]
		}
	}
	return nil
}
