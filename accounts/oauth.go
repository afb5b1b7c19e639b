package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// OAuthReplayGrace is how long after its rotation an OAuth refresh token
// presented again by its own client, from the address of that rotation,
// is refused without more (parallel refreshes of agents and command-line
// tools); later, or from another address, it is a replay.
const OAuthReplayGrace = 10 * time.Second

// OAuthRefreshed is the outcome of an OAuth refresh: the user, the new
// row of the OAuth session, its raw refresh token and its grant.
type OAuthRefreshed struct {
	Account      *models.Account
	Session      *models.Session
	RefreshToken string
	Grant        *models.OAuthGrant
}

// OAuthSessions runs the sessions the OAuth provider opens for the
// applications users connect, on the users' Service: it opens them from a
// code exchange, rotates and ends them, and records the provider's
// security events. Fields are dependencies, set once before use.
type OAuthSessions struct {
	Engine *Service
}

// oauthStore returns the store of the OAuth provider's grants (its zero
// value, which sends plain queries).
func oauthStore() models.OAuthFlowStore { return models.OAuthFlowStore{} }

// Open opens, in the caller's transaction tx, the OAuth session of a code
// exchange: a user_sessions row of user with client 'oauth', whose
// assurance (methods, aal, authenticated_at, factor time) is copied from
// the live row of the approving session, and the oauth_grants row g (its
// SessionID, UserID and AuthTime are filled in). The user's row is locked
// first, as by every session change. A user who may not authenticate, or
// an approving session that ended, is ErrSessionEnded.
func (oa *OAuthSessions) Open(ctx context.Context, tx *sqlx.Tx, user, approving uuid.UUID, g *models.OAuthGrant, o Origin) (*models.Session, string, error) {
	s := oa.Engine
	acc, err := s.Accounts.LockForUpdate(ctx, tx, user)
	if errors.Is(err, models.ErrNotFound) {
		return nil, "", ErrSessionEnded
	}
	if err != nil {
		return nil, "", err
	}
	if !usable(acc) {
		return nil, "", ErrSessionEnded
	}
	from, err := s.Sessions.LiveInChain(ctx, tx, user, approving)
	if errors.Is(err, models.ErrNotFound) {
		return nil, "", ErrSessionEnded
	}
	if err != nil {
		return nil, "", err
	}
	now := s.Now()
	if !from.ExpiresAt.After(now) {
		return nil, "", ErrSessionEnded
	}
	sess, raw, err := s.newSession(user, o, "", models.ClientOAuth, now)
	if err != nil {
		return nil, "", err
	}
	sess.Client = models.ClientOAuth
	sess.Assurance = from.Assurance
	if err := s.Sessions.Create(ctx, tx, sess); err != nil {
		return nil, "", err
	}
	g.SessionID, g.UserID, g.AuthTime, g.CreatedAt = sess.SessionID, user, from.AuthenticatedAt, now
	if err := oauthStore().InsertGrant(ctx, tx, g); err != nil {
		return nil, "", err
	}
	return sess, raw, nil
}

// Refresh rotates the refresh token raw of an OAuth session of client, as
// Service.Refresh does a first-party one and with the same refresh
// budget, and returns the new row, its token and the session's grant. A
// token of a first-party session, of another client's session or that
// names nothing is ErrUnknownRefresh, with nothing changed. A rotated
// token presented again within OAuthReplayGrace of its rotation, from the
// client address of that rotation, is ErrInvalidRefresh and nothing more;
// later, or from another address, it is a replay, which ends
// that OAuth session only (event refresh_theft with data.clientId): the
// user's other sessions and token version are left alone. A spent budget
// is a *LimitedError.
func (oa *OAuthSessions) Refresh(ctx context.Context, raw, client string, o Origin) (*OAuthRefreshed, error) {
	s := oa.Engine
	if !auth.WellFormedOpaqueToken(raw) || client == "" {
		return nil, ErrUnknownRefresh
	}
	hash := auth.HashOpaqueToken(raw)
	now := s.Now()
	next, newRaw, err := s.newSession(uuid.Nil, o, "", models.ClientOAuth, now)
	if err != nil {
		return nil, err
	}
	acc, err := s.Sessions.RotateLiveOAuth(ctx, s.DB, hash, client, next, now, s.RefreshBudget)
	if err == nil {
		s.outcome("rotated")
		return oa.refreshed(ctx, acc, next, newRaw)
	}
	if !errors.Is(err, models.ErrNotFound) {
		return nil, err
	}
	return oa.refreshLocked(ctx, hash, client, o)
}

// refreshed reads the grant of a rotated OAuth session.
func (oa *OAuthSessions) refreshed(ctx context.Context, acc *models.Account, sess *models.Session, raw string) (*OAuthRefreshed, error) {
	s := oa.Engine
	g, err := oauthStore().GrantBySession(ctx, s.DB, sess.SessionID)
	if err != nil {
		return nil, err
	}
	return &OAuthRefreshed{Account: acc, Session: sess, RefreshToken: raw, Grant: g}, nil
}

// refreshLocked is the transaction of every other case of Refresh, with
// the owner locked first as in Service.refreshLocked.
func (oa *OAuthSessions) refreshLocked(ctx context.Context, hash, client string, o Origin) (*OAuthRefreshed, error) {
	s := oa.Engine
	var (
		out     refreshOutcome
		newRaw  string
		ended   bool
		outcome string
	)
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		out, newRaw, ended, outcome = refreshOutcome{}, "", false, "unknown"
		acc, sess, err := s.Sessions.LockOwnerAndRead(ctx, tx, hash)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if sess.Client != models.ClientOAuth {
			return nil
		}
		g, err := oauthStore().GrantBySession(ctx, tx, sess.SessionID)
		if errors.Is(err, models.ErrNotFound) || (err == nil && g.ClientID != client) {
			return nil
		}
		if err != nil {
			return err
		}
		// Read again under the owner's lock: a concurrent rotation may have
		// committed while this transaction waited for it.
		if sess, err = s.Sessions.ByHash(ctx, tx, hash); err != nil {
			return err
		}
		out.account, out.old = acc, sess
		now := s.Now()
		spent, retry := s.RefreshBudget.Spent(sess, now)
		out.retry = retry
		out.transition = transitionFor(tokenState(sess.State(now)), usable(acc), sess.TheftDetectedAt != nil, spent)
		outcome = out.outcome
		switch out.effect {
		case effectRevoke:
			_, err := s.Sessions.Revoke(ctx, tx, sess.ID, now)
			return err
		case effectRotate:
			next, raw, err := s.newSession(acc.ID, o, "", models.ClientOAuth, now)
			if err != nil {
				return err
			}
			next.Client = models.ClientOAuth
			next.SessionID, next.LoginAt, next.Assurance = sess.SessionID, sess.LoginAt, sess.Assurance
			s.RefreshBudget.Advance(sess, next, now)
			if err := s.Sessions.Rotate(ctx, tx, sess.ID, next, now); err != nil {
				return err
			}
			out.next, newRaw = next, raw
			return nil
		case effectTheft:
			if sess.RevokedAt != nil && now.Sub(*sess.RevokedAt) <= OAuthReplayGrace {
				same, err := oa.sameRotationAddress(ctx, tx, sess, o)
				if err != nil {
					return err
				}
				if same {
					outcome = "replay_grace"
					out.effect = effectNone
					return nil
				}
			}
			marked, err := s.Sessions.MarkTheft(ctx, tx, acc.ID, sess.SessionID, now)
			if err != nil || !marked {
				return err
			}
			if _, err := s.Sessions.RevokeChain(ctx, tx, acc.ID, sess.SessionID, now); err != nil {
				return err
			}
			ended = true
			return s.record(ctx, tx, models.EventRefreshTheft, acc.ID, sess.SessionID, o,
				map[string]any{"clientId": client, "revoked": 1})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.outcome(outcome)
	if out.effect == effectRotate {
		return oa.refreshed(ctx, out.account, out.next, newRaw)
	}
	if ended {
		s.Log.Warn("OAuth refresh token replayed: its session ended", "event", models.EventRefreshTheft,
			"ownerType", string(s.Kind.Type), "ownerId", out.account.ID.String(),
			"sessionId", out.old.SessionID.String(), "clientId", client)
		s.notifyEnded(out.account.ID, []uuid.UUID{out.old.SessionID})
	}
	if out.old == nil {
		return nil, ErrUnknownRefresh
	}
	return nil, out.err(out.retry)
}

// sameRotationAddress reports whether the request o comes from the client
// address recorded by the rotation that replaced the rotated row old: the
// grace of parallel refreshes is for one client's own concurrent calls,
// and a token replayed from elsewhere (a thief who refreshed first, or
// the client after a thief did) is a replay.
func (oa *OAuthSessions) sameRotationAddress(ctx context.Context, tx *sqlx.Tx, old *models.Session, o Origin) (bool, error) {
	s := oa.Engine
	ip := ipAddress(o.IP)
	if old.ReplacedBySessionID == nil || ip == nil {
		return false, nil
	}
	next, err := s.Sessions.ByID(ctx, tx, *old.ReplacedBySessionID)
	if errors.Is(err, models.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return next.IPAddress != nil && *next.IPAddress == *ip, nil
}

// End ends the session chain of owner (an OAuth session whose code was
// presented twice, say), with the owner locked first, and reports whether
// it was live.
func (oa *OAuthSessions) End(ctx context.Context, owner, chain uuid.UUID) (bool, error) {
	s := oa.Engine
	var ended bool
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			if errors.Is(err, models.ErrNotFound) {
				return nil
			}
			return err
		}
		var err error
		ended, err = s.Sessions.RevokeChain(ctx, tx, owner, chain, s.Now())
		return err
	})
	if err == nil && ended {
		s.notifyEnded(owner, []uuid.UUID{chain})
	}
	return ended, err
}

// RecordEvent writes a security event of the provider about owner in db
// (the transaction of the change it records: an application connected or
// revoked), as the engine's own changes do: from the request o, about
// session (uuid.Nil: none), with data as its JSON object.
func (oa *OAuthSessions) RecordEvent(ctx context.Context, db models.DB, typ string, owner, session uuid.UUID, o Origin, data map[string]any) error {
	return oa.Engine.record(ctx, db, typ, owner, session, o, data)
}
