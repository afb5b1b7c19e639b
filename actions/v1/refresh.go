package v1

import (
	"context"
	"errors"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Refresh rotates a refresh token: the old one dies, a new one and a new
// access token (for the session's original client) are returned.
//
// Its rate budget is not a per-client one spent before it runs: a known
// token spends its session's own budget (in the engine), so that many
// sessions behind one address do not share one, while a token that names
// no session spends the client's budget through ClientBudget.
type Refresh struct {
	Accounts Refresher
	Cookies  Cookies
	// ClientBudget, when set, spends one unit of the requesting client's
	// refresh budget and returns how long the client must wait when it was
	// already spent (zero: not spent).
	ClientBudget func(ctx context.Context, req *action.Request) time.Duration
}

// Refresher is what Refresh needs of the account engine: an
// *accounts.Service, or a fake in a unit test.
type Refresher interface {
	OwnerKind() accounts.Kind
	Refresh(ctx context.Context, raw string, o accounts.Origin) (*accounts.Issued, error)
}

// RefreshArgs are the arguments of Refresh. The token is read from the
// cookie first; the argument serves mobile clients. A value that is not a
// string counts as absent, so it is answered like an unknown token.
type RefreshArgs struct {
	RefreshToken string `arg:"refreshToken,lenient,secret,allownul"`
}

// Spec declares V1Refresh (V1AdminRefresh for admins).
func (a *Refresh) Spec() action.Spec {
	s := specFor(a.Accounts.OwnerKind(), "Refresh", "refresh")
	s.Summary = "Rotate the refresh token and get a new access token"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{a.Accounts.OwnerKind().Codes.InvalidRefresh, errorcodes.TooManyRequests}
	s.SameSite = true
	return s
}

// Run rotates the token. A refresh refused for good clears the cookie,
// which holds a token that can never work again; one refused for a spent
// budget (429) or an outage keeps it.
func (a *Refresh) Run(ctx context.Context, req *action.Request, in *RefreshArgs) (*SessionResult, error) {
	kind := a.Accounts.OwnerKind()
	raw := refreshTokenOf(kind, a.Cookies, req, in.RefreshToken)
	iss, err := a.Accounts.Refresh(ctx, raw, Origin(req))
	if err == nil {
		return SessionAnswer(kind, a.Cookies, req, iss), nil
	}
	if !errors.Is(err, accounts.ErrInvalidRefresh) {
		return nil, AccountError(kind, err)
	}
	if _, had := a.Cookies.Read(req, kind.Type); had {
		a.Cookies.Clear(req, kind.Type)
	}
	if errors.Is(err, accounts.ErrUnknownRefresh) && a.ClientBudget != nil {
		if wait := a.ClientBudget(ctx, req); wait > 0 {
			return nil, tooManyRequests(wait)
		}
	}
	return nil, AccountError(kind, err)
}
