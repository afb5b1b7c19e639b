package v1

import (
	"context"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
)

// AdminUserPasskeys lists a user's passkeys.
type AdminUserPasskeys struct {
	Passkeys *accounts.Passkeys
}

// Spec declares V1AdminUserPasskeys.
func (a *AdminUserPasskeys) Spec() action.Spec {
	return adminUsersSpec("UserPasskeys", "passkeys", "List a user's passkeys", accounts.UserNotFound)
}

// Run lists them.
func (a *AdminUserPasskeys) Run(ctx context.Context, _ *action.Request, in *UserIDArgs) (*PasskeysResult, error) {
	if _, err := a.Passkeys.Engine.Account(ctx, in.ID); err != nil {
		return nil, userError(err)
	}
	list, err := a.Passkeys.ListPasskeys(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return passkeysResult(list), nil
}

// AdminRemoveUserPasskey removes one of a user's passkeys, its last way
// to sign in included (the user can set a password by the reset flow);
// the event names the admin.
type AdminRemoveUserPasskey struct {
	Passkeys *accounts.Passkeys
}

// AdminUserPasskeyArgs name a user and one of its passkeys.
type AdminUserPasskeyArgs struct {
	ID        uuid.UUID `arg:"id" validate:"required"`
	PasskeyID uuid.UUID `arg:"passkeyId" validate:"required"`
}

// Spec declares V1AdminRemoveUserPasskey.
func (a *AdminRemoveUserPasskey) Spec() action.Spec {
	return sensitiveAdminSpec("RemoveUserPasskey", "removepasskey", "Remove one of a user's passkeys",
		accounts.UserNotFound, accounts.UserPasskeyNotFound)
}

// Run removes it.
func (a *AdminRemoveUserPasskey) Run(ctx context.Context, req *action.Request, in *AdminUserPasskeyArgs) (*Empty, error) {
	if err := a.Passkeys.RemovePasskeyFor(ctx, in.ID, in.PasskeyID, actor(req)); err != nil {
		return nil, userError(err)
	}
	return &Empty{}, nil
}
