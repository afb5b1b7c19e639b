package accounts

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// NewAccount is what registration or account creation takes. Email is
// stored trimmed and lowercased; Password exactly as given.
type NewAccount struct {
	Email     string
	Password  string
	FirstName string
	LastName  string
	Timezone  string
	Locale    string
}

func (s *Service) prepare(ctx context.Context, in NewAccount) (*models.Account, error) {
	encoded, salt, err := s.Hasher.Hash(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	acc := &models.Account{
		ID: id, Email: strings.ToLower(strings.TrimSpace(in.Email)), Password: encoded, Salt: salt,
		FirstName: in.FirstName, LastName: in.LastName, Timezone: in.Timezone, Locale: in.Locale,
		IsActive: true, CreatedAt: now, UpdatedAt: now,
	}
	if acc.Timezone == "" {
		acc.Timezone = "UTC"
	}
	if acc.Locale == "" {
		acc.Locale = "en"
	}
	return acc, nil
}

// Create adds an account without opening a session (the admin command).
func (s *Service) Create(ctx context.Context, in NewAccount) (*models.Account, error) {
	acc, err := s.prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := s.Accounts.Create(ctx, s.DB, acc); err != nil {
		if errors.Is(err, models.ErrDuplicate) {
			return nil, ErrExists
		}
		return nil, err
	}
	return acc, nil
}

// Register creates an active account and logs it in, counting the
// registration as its first login, through the completion step of every
// login (a new account owes no second factor; the account trusts its
// client, see trustClient). An e-mail already used, by
// a soft-deleted account too, is ErrExists: the unique index decides, so
// concurrent registrations of one address create one account. So is an
// address an e-mail change left reserved for its revert (see reserve).
func (s *Service) Register(ctx context.Context, in NewAccount, o Origin) (*Issued, error) {
	acc, err := s.prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	acc.LoginCount, acc.LastLoginAt = 1, &acc.CreatedAt
	iss, err := s.complete(ctx, firstFactor{
		method: models.MethodPassword, level: 1, origin: o, event: models.EventRegister,
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			if err := s.Accounts.Create(ctx, tx, acc); err != nil {
				return nil, err
			}
			return acc, s.reserve(ctx, tx, acc.Email, uuid.Nil)
		},
	})
	if errors.Is(err, models.ErrDuplicate) {
		return nil, ErrExists
	}
	if err != nil {
		return nil, err
	}
	if s.Mail.available() {
		// The account exists now; a failure to queue the verification mail
		// must not undo it (the user can ask for a re-send).
		if _, err := s.sendToken(ctx, acc, models.PurposeEmailVerify, nil); err != nil {
			s.Log.Warn("verification mail not queued", "ownerId", acc.ID.String(), "error", err.Error())
		}
	}
	return iss, nil
}
