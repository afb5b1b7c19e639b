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
func (s *Service) ListIdentities(ctx context.Context, owner uuid.UUID) ([]models.Identity, error) {
	if s.Kind.Type != Users.Type {
		return []models.Identity{}, nil
	}
	if _, err := s.Account(ctx, owner); err != nil {
		return nil, err
	}
	return s.Identities.ByUser(ctx, s.DB, owner)
}

// Unlink removes the owner's identity id, in the owner's session, unless
// it is the owner's last way to sign in (ErrLastSignInMethod). ErrIdentity
// NotFound means the owner has no such identity. The owner is mailed.
func (s *Service) Unlink(ctx context.Context, owner, session, id uuid.UUID, o Origin) error {
	return s.unlink(ctx, owner, id, session, o, nil)
}

// UnlinkFor removes the user's identity id on its behalf (the support
// desk), recorded with the admin's id. Unlike the owner's own unlink it
// may remove the last way to sign in: the owner can still set a password
// through the password reset mail.
func (s *Service) UnlinkFor(ctx context.Context, user, id uuid.UUID, by Actor) error {
	return s.unlink(ctx, user, id, uuid.Nil, by.Origin, by.data())
}

// unlink removes the identity in one transaction with its event; data is
// nil for the owner's own change (which keeps the last sign-in method),
// else the acting admin's.
func (s *Service) unlink(ctx context.Context, owner, id, session uuid.UUID, o Origin, data map[string]any) error {
	if s.Kind.Type != Users.Type {
		return ErrIdentityNotFound
	}
	var (
		acc  *models.Account
		gone *models.Identity
	)
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		var err error
		if acc, err = s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			return err
		}
		gone, err = s.Identities.Remove(ctx, tx, owner, id)
		if errors.Is(err, models.ErrNotFound) {
			return ErrIdentityNotFound
		}
		if err != nil {
			return err
		}
		if data == nil {
			if n, err := s.signInMethods(ctx, tx, acc); err != nil {
				return err
			} else if n.Count() == 0 {
				return ErrLastSignInMethod
			}
			data = map[string]any{}
		}
		data["provider"], data["identityId"] = gone.Provider, gone.ID.String()
		return s.record(ctx, tx, models.EventIdentityUnlinked, owner, session, o, data)
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	s.noticeProvider(ctx, acc, mail.IdentityUnlinked, s.providerName(gone.Provider))
	return nil
}

// providerName is the label of the identity provider id, for mails.
func (s *Service) providerName(id string) string {
	if s.ProviderName != nil {
		if name := s.ProviderName(id); name != "" {
			return name
		}
	}
	return id
}
