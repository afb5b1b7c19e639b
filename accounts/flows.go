package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
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
// concurrent registrations of one address create one account.
func (s *Service) Register(ctx context.Context, in NewAccount, o Origin) (*Issued, error) {
	acc, err := s.prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	acc.LoginCount, acc.LastLoginAt = 1, &acc.CreatedAt
	iss, err := s.complete(ctx, firstFactor{
		method: models.MethodPassword, level: 1, origin: o, event: models.EventRegister,
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			return acc, s.Accounts.Create(ctx, tx, acc)
		},
	})
	if errors.Is(err, models.ErrDuplicate) {
		return nil, ErrExists
	}
	if err != nil {
		return nil, err
	}
	if s.mailAvailable() {
		// The account exists now; a failure to queue the verification mail
		// must not undo it (the user can ask for a re-send).
		if _, err := s.sendToken(ctx, acc, models.PurposeEmailVerify, nil); err != nil {
			s.Log.Warn("verification mail not queued", "ownerId", acc.ID.String(), "error", err.Error())
		}
	}
	return iss, nil
}

// Login checks the credentials, then the account flags (so that only the
// holder of the password learns an account is inactive or deleted), and
// hands the verified password to the completion step, which opens the
// session or, when the owner has a second factor, answers
// *MFARequiredError. An unknown e-mail costs the same hashing work as a
// wrong password.
//
// With a Throttle, an attempt it makes wait is refused with a
// *SlowedDownError before anything is checked; a wrong password or unknown
// e-mail is reported to it as a failure, and a completed login (not one
// that still owes a second factor) makes the account trust the client
// (see trustClient).
func (s *Service) Login(ctx context.Context, email, password string, o Origin) (*Issued, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if err := s.slowedDown(ctx, email, o); err != nil {
		return nil, err
	}
	iss, err := s.login(ctx, email, password, o)
	if errors.Is(err, ErrInvalidCredentials) {
		s.throttleFailed(ctx, email, o)
	}
	return iss, err
}

func (s *Service) login(ctx context.Context, email, password string, o Origin) (*Issued, error) {
	acc, err := s.Accounts.ByEmail(ctx, s.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		if err := s.Hasher.VerifyDummy(ctx, password); err != nil {
			return nil, err
		}
		return nil, ErrInvalidCredentials
	}
	if err != nil {
		return nil, err
	}
	ok, rehash, err := s.passwordMatches(ctx, acc, password)
	if err != nil {
		return nil, err
	}
	if refused := s.refusal(acc, ok); refused != nil {
		// No change to record a transaction with: the event stands alone.
		reason := map[string]any{"reason": refusalReason(refused)}
		if err := s.record(ctx, s.DB, models.EventLoginFailed, acc.ID, uuid.Nil, o, reason); err != nil {
			return nil, err
		}
		return nil, refused
	}
	var encoded, salt string
	if rehash {
		if encoded, salt, err = s.Hasher.Hash(ctx, password); err != nil {
			return nil, err
		}
	}
	return s.complete(ctx, firstFactor{
		method: models.MethodPassword, level: 1, origin: o, event: models.EventLogin,
		begin: func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error) {
			locked, err := s.lockUsable(ctx, tx, acc.ID, acc.Password)
			if err == nil && rehash {
				err = s.Accounts.SetPassword(ctx, tx, acc.ID, encoded, salt, s.Now())
			}
			return locked, err
		},
	})
}

// passwordMatches checks password against acc's hash. An account without
// a password matches none, at the cost of a check, so that its answer
// takes as long as a wrong password's.
func (s *Service) passwordMatches(ctx context.Context, acc *models.Account, password string) (ok, rehash bool, err error) {
	if acc.Password == "" {
		return false, false, s.Hasher.VerifyDummy(ctx, password)
	}
	return s.Hasher.Verify(ctx, acc.Password, password)
}

// lockUsable locks the owner id for the rest of the transaction and
// checks that it may still log in with the password hash checked: an
// owner deactivated or deleted meanwhile is ErrInactive, a password
// changed meanwhile ErrInvalidCredentials.
func (s *Service) lockUsable(ctx context.Context, tx *sqlx.Tx, id uuid.UUID, checked string) (*models.Account, error) {
	acc, err := s.lockActive(ctx, tx, id)
	if err == nil && acc.Password != checked {
		return nil, ErrInvalidCredentials
	}
	return acc, err
}

// refusal is the error a login of acc is refused with, given whether its
// password matched (credentials first, then the flags), or nil.
func (s *Service) refusal(acc *models.Account, passwordOK bool) error {
	switch {
	case !passwordOK:
		return ErrInvalidCredentials
	case !acc.IsActive:
		return ErrInactive
	case acc.DeletedAt != nil:
		return ErrDeleted
	case s.Mail != nil && s.Mail.RequireVerified && acc.EmailVerifiedAt == nil:
		return ErrNotVerified
	}
	return nil
}

// refusalReason names a login refusal in its security event.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, ErrInactive):
		return "account_inactive"
	case errors.Is(err, ErrDeleted):
		return "account_deleted"
	case errors.Is(err, ErrNotVerified):
		return "email_not_verified"
	}
	return "invalid_credentials"
}

// Logout ends the caller's session (the access token's) and, when raw is
// the refresh token of another live session of owner, that one too; a
// missing, malformed, unknown or foreign token is ignored. The owner's row
// is locked first, as by every session change: a rotation of the session
// in flight then commits before the revocation reads the chain (which
// revokes its successor) or finds the session revoked, so a successful
// logout never leaves the session alive.
func (s *Service) Logout(ctx context.Context, owner, session uuid.UUID, raw string, o Origin) error {
	// Never nil: to Ended, nil means every session of the owner.
	ended := make([]uuid.UUID, 0, 2)
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		ended = ended[:0]
		now := s.Now()
		if _, err := s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			if errors.Is(err, models.ErrNotFound) {
				return nil // no owner, no session to end
			}
			return err
		}
		ok, err := s.Sessions.RevokeChain(ctx, tx, owner, session, now)
		if err != nil {
			return err
		}
		if ok {
			ended = append(ended, session)
		}
		if auth.WellFormedRefreshToken(raw) {
			chain, ok, err := s.Sessions.RevokeByHash(ctx, tx, owner, auth.HashRefreshToken(raw), now)
			if err != nil {
				return err
			}
			if ok && chain != session {
				ended = append(ended, chain)
			}
		}
		if len(ended) == 0 {
			return nil
		}
		return s.record(ctx, tx, models.EventLogout, owner, session, o, map[string]any{"sessions": len(ended)})
	})
	if err != nil {
		return err
	}
	s.notifyEnded(owner, ended)
	return nil
}

// LogoutAll increments the owner's token version, which ends every access
// token at once, revokes all of its active sessions and voids its unused
// one-time tokens, in one transaction. session is the caller's (uuid.Nil when an admin acts), and
// data goes into the security event.
func (s *Service) LogoutAll(ctx context.Context, owner, session uuid.UUID, o Origin, data map[string]any) error {
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		now := s.Now()
		if _, err := s.Accounts.BumpTokenVersion(ctx, tx, owner, now); err != nil {
			return err
		}
		if _, err := s.endAll(ctx, tx, owner, now); err != nil {
			return err
		}
		if err := s.voidTokens(ctx, tx, owner, now); err != nil {
			return err
		}
		return s.record(ctx, tx, models.EventLogoutAll, owner, session, o, data)
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	s.notifyEnded(owner, nil)
	return nil
}

// Account returns the account with id, or ErrNotFound.
func (s *Service) Account(ctx context.Context, id uuid.UUID) (*models.Account, error) {
	acc, err := s.Accounts.ByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	return acc, err
}

// PurgeExpired deletes the sessions that expired more than one refresh
// lifetime ago, and returns how many.
func (s *Service) PurgeExpired(ctx context.Context) (int64, error) {
	n, err := s.Sessions.PurgeExpired(ctx, s.DB, s.Now().Add(-s.RefreshTTL), 1000)
	if err != nil {
		return n, fmt.Errorf("purge %s: %w", s.Kind.Tables.Sessions, err)
	}
	return n, nil
}

// challengeRetention is how long a login challenge is kept after it
// expired (its failures are in the security events).
const challengeRetention = time.Hour

// PurgeChallenges deletes the login challenges and WebAuthn challenges of
// every owner type that expired more than an hour ago, and returns how
// many.
func (s *Service) PurgeChallenges(ctx context.Context) (int64, error) {
	before := s.Now().Add(-challengeRetention)
	n, err := s.Challenges.Purge(ctx, s.DB, before, 1000)
	if err != nil {
		return n, fmt.Errorf("purge login challenges: %w", err)
	}
	m, err := s.Ceremonies.Purge(ctx, s.DB, before, 1000)
	if err != nil {
		return n + m, fmt.Errorf("purge webauthn challenges: %w", err)
	}
	return n + m, nil
}

// clientOf converts a stored client name.
func clientOf(s string) action.Client {
	if s == string(action.App) {
		return action.App
	}
	return action.Web
}
