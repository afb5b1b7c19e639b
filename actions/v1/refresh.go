package v1

import (
	"context"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Refresh rotates a refresh token: the old one dies, a new one and a new
// access token (for the session's original client) are returned.
type Refresh struct {
	Accounts Refresher
	Cookies  Cookies
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
	s.Errors = []errorcodes.Code{a.Accounts.OwnerKind().Codes.InvalidRefresh}
	s.RateClass = action.RateRefresh
	s.SameSite = true
	return s
}

// Run rotates the token. A failed refresh clears the cookie, which holds a
// token that can never work again.
func (a *Refresh) Run(ctx context.Context, req *action.Request, in *RefreshArgs) (*SessionResult, error) {
	raw := refreshTokenOf(a.Accounts.OwnerKind(), a.Cookies, req, in.RefreshToken)
	iss, err := a.Accounts.Refresh(ctx, raw, Origin(req))
	if err != nil {
		if _, had := a.Cookies.Read(req, a.Accounts.OwnerKind().Type); had {
			a.Cookies.Clear(req, a.Accounts.OwnerKind().Type)
		}
		return nil, AccountError(a.Accounts.OwnerKind(), err)
	}
	return SessionAnswer(a.Accounts.OwnerKind(), a.Cookies, req, iss), nil
}
