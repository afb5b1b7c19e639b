package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

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
		if auth.WellFormedOpaqueToken(raw) {
			other, ok, err := s.Sessions.RevokeByHash(ctx, tx, owner, auth.HashOpaqueToken(raw), now)
			if err != nil {
				return err
			}
			if ok && other != session {
				ended = append(ended, other)
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
