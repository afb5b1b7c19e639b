package accounts

import (
	"context"

	"github.com/actionkit/actionkit/models"
)

// SignInMethods is what an owner can sign in with, each counting as one
// way in: its password, and each of its passkeys. Every removal of a way
// to sign in (a passkey, an identity provider's identity) asks
// signInMethods in the transaction that removes it, with the owner
// locked, and refuses to leave none: an owner must never lock itself out.
type SignInMethods struct {
	// Password reports a password set on the account.
	Password bool
	// Passkeys counts its passkeys.
	Passkeys int
}

// Count is how many ways to sign in the owner has.
func (m SignInMethods) Count() int {
	n := m.Passkeys
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
	return SignInMethods{Password: acc.HasPassword, Passkeys: f.Passkeys}, nil
}
