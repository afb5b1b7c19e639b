package v1

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// IdentityView is an identity-provider account on the wire.
type IdentityView struct {
	ID          uuid.UUID  `json:"id"`
	Provider    string     `json:"provider"`
	Email       *string    `json:"email"`
	CreatedAt   time.Time  `json:"createdAt"`
	LastLoginAt *time.Time `json:"lastLoginAt"`
}

// IdentitiesResult is a list of identities.
type IdentitiesResult struct {
	Identities []IdentityView `json:"identities"`
}

func identitiesResult(list []models.Identity) *IdentitiesResult {
	out := &IdentitiesResult{Identities: make([]IdentityView, len(list))}
	for i, id := range list {
		out.Identities[i] = IdentityView{ID: id.ID, Provider: id.Provider, Email: id.Email, CreatedAt: id.CreatedAt, LastLoginAt: id.LastLoginAt}
	}
	return out
}

// Identities lists the caller's identity-provider accounts.
type Identities struct {
	Federation *accounts.Federation
}

// Spec declares V1Identities.
func (a *Identities) Spec() action.Spec {
	return oidcSpec("Identities", "identities", "List the identity-provider accounts connected to yours", action.Owner(accounts.Users.Type))
}

// Run lists them, oldest first.
func (a *Identities) Run(ctx context.Context, req *action.Request, _ *struct{}) (*IdentitiesResult, error) {
	list, err := a.Federation.ListIdentities(ctx, req.Caller.ID)
	if err != nil {
		return nil, federationError(err)
	}
	return identitiesResult(list), nil
}

// UnlinkIdentity removes one of the caller's identity-provider accounts,
// unless it is the caller's last way to sign in.
type UnlinkIdentity struct {
	Federation *accounts.Federation
}

// UnlinkIdentityArgs name the identity.
type UnlinkIdentityArgs struct {
	IdentityID uuid.UUID `arg:"identityId" validate:"required"`
}

// Spec declares V1UnlinkIdentity.
func (a *UnlinkIdentity) Spec() action.Spec {
	s := oidcSpec("UnlinkIdentity", "identities/unlink", "Remove an identity-provider account from yours", action.Owner(accounts.Users.Type),
		accounts.UserIdentityNotFound, accounts.UserLastSignInMethod)
	s.Reauth = action.ReauthRecent
	return s
}

// Run removes it.
func (a *UnlinkIdentity) Run(ctx context.Context, req *action.Request, in *UnlinkIdentityArgs) (*Empty, error) {
	if err := a.Federation.Unlink(ctx, req.Caller.ID, req.Caller.SessionID, in.IdentityID, Origin(req)); err != nil {
		return nil, federationError(err)
	}
	return &Empty{}, nil
}

// AdminUserIdentities lists a user's identity-provider accounts.
type AdminUserIdentities struct {
	Federation *accounts.Federation
}

// Spec declares V1AdminUserIdentities.
func (a *AdminUserIdentities) Spec() action.Spec {
	return adminUsersSpec("UserIdentities", "identities", "List a user's identity-provider accounts", accounts.UserNotFound)
}

// Run lists them.
func (a *AdminUserIdentities) Run(ctx context.Context, _ *action.Request, in *UserIDArgs) (*IdentitiesResult, error) {
	list, err := a.Federation.ListIdentities(ctx, in.ID)
	if err != nil {
		return nil, userError(err)
	}
	return identitiesResult(list), nil
}

// AdminUnlinkIdentity removes a user's identity-provider account on its
// behalf, even its last way to sign in (the user can still set a password
// through the reset mail); the event records the admin's id.
type AdminUnlinkIdentity struct {
	Federation *accounts.Federation
}

// AdminUnlinkIdentityArgs name the user and the identity.
type AdminUnlinkIdentityArgs struct {
	ID         uuid.UUID `arg:"id" validate:"required"`
	IdentityID uuid.UUID `arg:"identityId" validate:"required"`
}

// Spec declares V1AdminUnlinkIdentity.
func (a *AdminUnlinkIdentity) Spec() action.Spec {
	return sensitiveAdminSpec("UnlinkIdentity", "unlinkidentity", "Remove a user's identity-provider account",
		accounts.UserNotFound, accounts.UserIdentityNotFound)
}

// Run removes it.
func (a *AdminUnlinkIdentity) Run(ctx context.Context, req *action.Request, in *AdminUnlinkIdentityArgs) (*Empty, error) {
	err := a.Federation.UnlinkFor(ctx, in.ID, in.IdentityID, actor(req))
	if errors.Is(err, accounts.ErrIdentityNotFound) {
		return nil, accounts.UserIdentityNotFound.New()
	}
	if err != nil {
		return nil, userError(err)
	}
	return &Empty{}, nil
}
