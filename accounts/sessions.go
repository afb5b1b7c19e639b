package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// restartSession ends every session and access token of the locked owner
// but lets the caller's session go on in a new row of its chain, with its
// assurance raised by raise when set (an enrolment) and kept otherwise. It
// returns the new row, its refresh token and the chains it ended (the
// caller's included). ErrSessionEnded means the caller's session ended
// meanwhile.
func (s *Service) restartSession(ctx context.Context, tx *sqlx.Tx, owner, session uuid.UUID, raise func(models.Assurance) models.Assurance, o Origin, now time.Time) (*models.Session, string, []uuid.UUID, error) {
	old, err := s.Sessions.LiveInChain(ctx, tx, owner, session)
	if errors.Is(err, models.ErrNotFound) {
		return nil, "", nil, ErrSessionEnded
	}
	if err != nil {
		return nil, "", nil, err
	}
	if _, err := s.Accounts.BumpTokenVersion(ctx, tx, owner, now); err != nil {
		return nil, "", nil, err
	}
	revoked, err := s.endAll(ctx, tx, owner, now)
	if err != nil {
		return nil, "", nil, err
	}
	a := old.Assurance
	if raise != nil {
		a = raise(a)
	}
	sess, raw, err := s.continueSession(ctx, tx, old, a, o, now)
	return sess, raw, revoked, err
}

// endAll revokes every session of the locked owner and voids its pending
// login challenges, and returns the chains it ended.
func (s *Service) endAll(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	revoked, err := s.Sessions.RevokeAll(ctx, tx, owner, now)
	if err != nil {
		return nil, err
	}
	if _, err := s.Challenges.VoidAll(ctx, tx, string(s.Kind.Type), owner, now); err != nil {
		return nil, err
	}
	return revoked, nil
}

// without returns ids without the value drop.
func without(ids []uuid.UUID, drop uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if id != drop {
			out = append(out, id)
		}
	}
	return out
}
