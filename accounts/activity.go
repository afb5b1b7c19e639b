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

// Activity is where an owner kind's accounts are logged in and what
// happened to them, on its Service: the live sessions (with the
// applications of the OAuth ones), the end of one of them, and the
// security events. Fields are dependencies, set once before use.
type Activity struct {
	Engine *Service
}

// LiveSessions returns the live sessions of owner (one row per login: the
// chain's row that is not revoked), newest login first.
func (a *Activity) LiveSessions(ctx context.Context, owner uuid.UUID) ([]models.Session, error) {
	s := a.Engine
	return s.Sessions.ListLive(ctx, s.DB, owner, s.Now())
}

// OAuthSessionClients returns the clients of those of sessions that are
// OAuth sessions, by session id (for the session list).
func (a *Activity) OAuthSessionClients(ctx context.Context, sessions []uuid.UUID) (map[uuid.UUID]models.OAuthSessionClient, error) {
	s := a.Engine
	if len(sessions) == 0 {
		return nil, nil
	}
	return oauthStore().SessionClients(ctx, s.DB, sessions)
}

// StillLive returns, in one statement, those of the given sessions (of any
// owners) that are live now and whose owner is active and not deleted, with
// the owner's token version: what a socket sweep needs to find the sockets
// of sessions that ended without their disconnect message arriving.
func (a *Activity) StillLive(ctx context.Context, sessions []uuid.UUID) ([]models.LiveSession, error) {
	s := a.Engine
	return s.Accounts.LiveSessions(ctx, s.DB, sessions, s.Now())
}

// RevokeSession ends the session of owner whose id is session, with its
// security event: a logout when it is current (the caller's own), else
// session_revoked. ErrSessionNotFound means no live session of owner has
// that id. The owner's row is locked first, as by every session change, so
// that a rotation in flight cannot hide the chain's live row from the
// revocation (see Service.Logout).
func (a *Activity) RevokeSession(ctx context.Context, owner, session, current uuid.UUID, o Origin) error {
	s := a.Engine
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
func (a *Activity) SecurityEvents(ctx context.Context, owner uuid.UUID, cursor string, limit int) ([]models.SecurityEvent, string, error) {
	s := a.Engine
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
