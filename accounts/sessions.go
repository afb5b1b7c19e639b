package accounts

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// ErrInvalidCursor: a cursor that no listing gave out.
var ErrInvalidCursor = errors.New("accounts: invalid cursor")

// LiveSessions returns the live sessions of owner (one row per login: the
// chain's row that is not revoked), newest login first.
func (s *Service) LiveSessions(ctx context.Context, owner uuid.UUID) ([]models.Session, error) {
	return s.Sessions.ListLive(ctx, s.DB, owner, s.Now())
}

// StillLive returns, in one statement, those of the given sessions (of any
// owners) that are live now and whose owner is active and not deleted, with
// the owner's token version: what a socket sweep needs to find the sockets
// of sessions that ended without their disconnect message arriving.
func (s *Service) StillLive(ctx context.Context, sessions []uuid.UUID) ([]models.LiveSession, error) {
	return s.Accounts.LiveSessions(ctx, s.DB, sessions, s.Now())
}

// RevokeSession ends the session of owner whose id is session, with its
// security event: a logout when it is current (the caller's own), else
// session_revoked. ErrSessionNotFound means no live session of owner has
// that id. The owner's row is locked first, as by every session change, so
// that a rotation in flight cannot hide the chain's live row from the
// revocation (see Logout).
func (s *Service) RevokeSession(ctx context.Context, owner, session, current uuid.UUID, o Origin) error {
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			if errors.Is(err, models.ErrNotFound) {
				return ErrSessionNotFound
			}
			return err
		}
		ok, err := s.Sessions.RevokeChain(ctx, tx, owner, session, s.Now())
		if err != nil {
			return err
		}
		if !ok {
			return ErrSessionNotFound
		}
		if session == current {
			return s.record(ctx, tx, models.EventLogout, owner, session, o, map[string]any{"sessions": 1})
		}
		return s.record(ctx, tx, models.EventSessionRevoked, owner, session, o,
			map[string]any{"by": current.String()})
	})
	if err != nil {
		return err
	}
	s.notifyEnded(owner, []uuid.UUID{session})
	return nil
}

// SecurityEvents returns at most limit security events of owner, newest first,
// from the position of cursor (empty: the newest), and the cursor of the
// next page (empty when there is none).
func (s *Service) SecurityEvents(ctx context.Context, owner uuid.UUID, cursor string, limit int) ([]models.SecurityEvent, string, error) {
	after, err := DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	list, err := s.Events.List(ctx, s.DB, string(s.Kind.Type), owner, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	if len(list) <= limit {
		return list, "", nil
	}
	last := list[limit-1]
	return list[:limit], EncodeCursor(models.Keyset{CreatedAt: last.CreatedAt, ID: last.ID}), nil
}

// cursorBytes is the size of a decoded cursor: microseconds since the
// epoch, then the id.
const cursorBytes = 8 + 16

// EncodeCursor returns the opaque cursor of a position in a listing ordered
// newest first.
func EncodeCursor(k models.Keyset) string {
	var b [cursorBytes]byte
	binary.BigEndian.PutUint64(b[:8], uint64(k.CreatedAt.UnixMicro()))
	copy(b[8:], k.ID[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// DecodeCursor reads a cursor of EncodeCursor; the empty cursor is the
// start (nil). Anything else is ErrInvalidCursor.
func DecodeCursor(c string) (*models.Keyset, error) {
	if c == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != cursorBytes {
		return nil, ErrInvalidCursor
	}
	micros := int64(binary.BigEndian.Uint64(b[:8]))
	if micros < 0 {
		return nil, ErrInvalidCursor
	}
	id, _ := uuid.FromBytes(b[8:])
	return &models.Keyset{CreatedAt: time.UnixMicro(micros).UTC(), ID: id}, nil
}

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
