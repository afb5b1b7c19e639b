package accounts

import (
	"context"
	"errors"

	"github.com/actionkit/actionkit/models"
)

// ErrLastSignInMethod refuses a removal (a passkey, an identity) that
// would leave the owner no way to sign in.
var ErrLastSignInMethod = errors.New("accounts: last sign-in method")

// SignInMethods is what an owner can sign in with, each counting as one
// way in: its password, each of its passkeys and each of its identities at
// an identity provider. It is the one rule of "the last sign-in method":
// every removal of a way to sign in asks signInMethods in the transaction
// that removes it, with the owner locked, and the owner's own removal
// refuses to leave none (ErrLastSignInMethod): an owner must never lock
// itself out.
type SignInMethods struct {
	// Password reports a password set on the account.
	Password bool
	// Passkeys counts its passkeys.
	Passkeys int
	// Identities counts its identities at identity providers (users only).
	Identities int
}

// Count is how many ways to sign in the owner has.
func (m SignInMethods) Count() int {
	n := m.Passkeys + m.Identities
	if m.Password {
		n++
	}
	return n
}

// signInMethods reads what acc (locked in db by the caller, so that
// concurrent removals see each other) can sign in with now.
func (s *Service) signInMethods(ctx context.Context, db models.DB, acc *models.Account) (SignInMethods, error) {
	f, err := s.Factors.Factors(ctx, db, string(s.Kind.Type), acc.ID)
	if err != nil {
		return SignInMethods{}, err
	}
	m := SignInMethods{Password: acc.HasPassword, Passkeys: f.Passkeys}
	if s.Kind.Type == Users.Type {
		if m.Identities, err = s.Identities.Count(ctx, db, acc.ID); err != nil {
			return SignInMethods{}, err
		}
	}
	return m, nil
}
