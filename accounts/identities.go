package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// ListIdentities lists the owner's identity-provider identities, oldest
// first (none for an admin).
func (f *Federation) ListIdentities(ctx context.Context, owner uuid.UUID) ([]models.Identity, error) {
	if f.Users.Kind.Type != Users.Type {
		return []models.Identity{}, nil
	}
	if _, err := f.Users.Account(ctx, owner); err != nil {
		return nil, err
	}
	return f.Users.Identities.ByUser(ctx, f.Users.DB, owner)
}

// Unlink removes the owner's identity id, in the owner's session, unless
// it is the owner's last way to sign in (ErrLastSignInMethod). ErrIdentity
// NotFound means the owner has no such identity. The owner is mailed.
func (f *Federation) Unlink(ctx context.Context, owner, session, id uuid.UUID, o Origin) error {
	return f.unlink(ctx, owner, id, session, o, nil)
}

// UnlinkFor removes the user's identity id on its behalf (the support
// desk), recorded with the admin's id. Unlike the owner's own unlink it
// may remove the last way to sign in: the owner can still set a password
// through the password reset mail.
func (f *Federation) UnlinkFor(ctx context.Context, user, id uuid.UUID, by Actor) error {
	return f.unlink(ctx, user, id, uuid.Nil, by.Origin, by.data())
}

// unlink removes the identity in one transaction with its event; data is
// nil for the owner's own change (which keeps the last sign-in method),
// else the acting admin's.
func (f *Federation) unlink(ctx context.Context, owner, id, session uuid.UUID, o Origin, data map[string]any) error {
	if f.Users.Kind.Type != Users.Type {
		return ErrIdentityNotFound
	}
	var (
		acc  *models.Account
		gone *models.Identity
	)
	err := models.Transact(ctx, f.Users.DB, func(tx *sqlx.Tx) error {
		var err error
		if acc, err = f.Users.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			return err
		}
		gone, err = f.Users.Identities.Remove(ctx, tx, owner, id)
		if errors.Is(err, models.ErrNotFound) {
			return ErrIdentityNotFound
		}
		if err != nil {
			return err
		}
		if data == nil {
			if n, err := f.Users.signInMethods(ctx, tx, acc); err != nil {
				return err
			} else if n.Count() == 0 {
				return ErrLastSignInMethod
			}
			data = map[string]any{}
		}
		data["provider"], data["identityId"] = gone.Provider, gone.ID.String()
		return f.Users.record(ctx, tx, models.EventIdentityUnlinked, owner, session, o, data)
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	f.Users.notices().sendAbout(ctx, acc, mail.IdentityUnlinked, f.Users.notices().providerName(gone.Provider))
	return nil
}
