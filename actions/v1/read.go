package v1

import (
	"context"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// Read returns the caller's own account.
type Read struct {
	Accounts Reader
}

// Reader is what Read needs of the account engine: an *accounts.Service,
// or a fake in a unit test.
type Reader interface {
	OwnerKind() accounts.Kind
	Account(ctx context.Context, id uuid.UUID) (*models.Account, error)
}

// ReadArgs are the arguments of Read: an optional id, which must be the
// caller's own.
type ReadArgs struct {
	ID *uuid.UUID `arg:"id"`
}

// Spec declares V1Read (V1AdminRead for admins).
func (a *Read) Spec() action.Spec {
	s := specFor(a.Accounts.OwnerKind(), "Read", "read")
	s.Summary = "Read your own profile"
	s.Auth = action.Owner(a.Accounts.OwnerKind().Type)
	s.Errors = []errorcodes.Code{a.Accounts.OwnerKind().Codes.AccountNotFound}
	if a.Accounts.OwnerKind().Type == accounts.Users.Type {
		// A user's own account is what an OAuth client or an agent may
		// read on its behalf; an admin's is not.
		s.Scopes, s.Tool = []string{ScopeAccountRead}, toolReadAccount
	}
	return s
}

// Run answers the account the authenticator loaded for this request.
func (a *Read) Run(ctx context.Context, req *action.Request, in *ReadArgs) (*AccountResult, error) {
	if in.ID != nil && *in.ID != req.Caller.ID {
		return nil, a.Accounts.OwnerKind().Codes.AccountNotFound.New()
	}
	acc, ok := req.Caller.Record.(*models.Account)
	if !ok {
		var err error
		if acc, err = a.Accounts.Account(ctx, req.Caller.ID); err != nil {
			return nil, AccountError(a.Accounts.OwnerKind(), err)
		}
	}
	return accountResult(a.Accounts.OwnerKind(), acc), nil
}
