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

// refreshOutcome is what one refresh transaction decided.
type refreshOutcome struct {
	transition
	account *models.Account
	old     *models.Session
	next    *models.Session
	revoked int
	// retry is how long the chain's spent budget lasts.
	retry time.Duration
}

// Refresh rotates the session of raw and issues new tokens, following the
// state machine of refreshTransitions:
//
//   - active, owner usable, budget left: the session becomes rotated and
//     a successor with the same client and platform is created;
//   - active, owner usable, budget spent (RefreshBudget): nothing changes,
//     and the answer is a *LimitedError;
//   - active, owner inactive or deleted; or expired: the session is revoked;
//   - revoked: nothing changes;
//   - rotated (a replay): every session of the owner is revoked and its
//     token version incremented, with no grace period, and the chain is
//     marked; a replay of a token of a chain marked so changes nothing
//     more (replay_repeated), so that a stolen dead token cannot log its
//     owner out again and again;
//   - unknown or malformed: nothing changes (ErrUnknownRefresh).
//
// Every other outcome is ErrInvalidRefresh. The first is tried in one
// statement (RotateLive); anything else takes refreshLocked.
func (s *Service) Refresh(ctx context.Context, raw string, o Origin) (*Issued, error) {
	if !auth.WellFormedOpaqueToken(raw) {
		t := transitionFor(tokenMalformed, false, false, false)
		s.outcome(t.outcome)
		return nil, t.err(0)
	}
	hash := auth.HashOpaqueToken(raw)
	if iss, err := s.rotateLive(ctx, hash, o); err == nil || !errors.Is(err, models.ErrNotFound) {
		return iss, err
	}
	return s.refreshLocked(ctx, hash, o)
}

// refreshLocked is the transaction that handles every row of the state
// machine. The owner row is locked as the session is read, so concurrent
// refreshes of one token serialise: one rotates, the rest see a replay,
// and of concurrent replays one runs the theft response, the rest see a
// repeated replay (a session read before the lock was granted is read
// again when the rotation finds it changed or the theft response finds
// its chain marked).
func (s *Service) refreshLocked(ctx context.Context, hash string, o Origin) (*Issued, error) {
	var out refreshOutcome
	var newRaw string
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		out = refreshOutcome{}
		acc, sess, err := s.Sessions.LockOwnerAndRead(ctx, tx, hash)
		if err == nil && sess.Client == models.ClientOAuth {
			// An OAuth session's token is refreshed at /oauth2/token only:
			// here it is as unknown as a token that names nothing.
			err = models.ErrNotFound
		}
		if errors.Is(err, models.ErrNotFound) {
			out.transition = transitionFor(tokenUnknown, false, false, false)
			return nil
		}
		if err != nil {
			return err
		}
		out.account, out.old = acc, sess
		newRaw, err = s.decide(ctx, tx, &out, o)
		if errors.Is(err, models.ErrConflict) {
			// The session was read before the owner's lock was granted and
			// changed meanwhile (a concurrent rotation, say): read it again,
			// under the lock, and follow its real transition.
			if out.old, err = s.Sessions.ByHash(ctx, tx, hash); err != nil {
				return err
			}
			newRaw, err = s.decide(ctx, tx, &out, o)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.outcome(out.outcome)
	switch out.effect {
	case effectRotate:
		return s.issue(out.account, out.next, newRaw)
	case effectTheft:
		s.Log.Warn("refresh token replayed: every session revoked", "event", models.EventRefreshTheft,
			"ownerType", string(s.Kind.Type), "ownerId", out.account.ID.String(),
			"sessionId", out.old.SessionID.String(), "revoked", out.revoked, "ip", o.IP)
		s.notifyEnded(out.account.ID, nil)
	}
	return nil, out.err(out.retry)
}

// rotateLive takes the fast row of the state machine in one statement: a
// live session of an owner who may authenticate is rotated. Any other row
// (or a session changed by a concurrent request) is models.ErrNotFound,
// with nothing changed, and Refresh takes refreshLocked.
func (s *Service) rotateLive(ctx context.Context, hash string, o Origin) (*Issued, error) {
	now := s.Now()
	next, raw, err := s.newSession(uuid.Nil, o, "", "", now)
	if err != nil {
		return nil, err
	}
	acc, err := s.Sessions.RotateLive(ctx, s.DB, hash, next, now, s.RefreshBudget)
	if err != nil {
		return nil, err
	}
	s.outcome(transitionFor(tokenActive, true, false, false).outcome)
	return s.issue(acc, next, raw)
}

// decide finds the transition of the locked owner and its session and
// applies its effect.
func (s *Service) decide(ctx context.Context, tx *sqlx.Tx, out *refreshOutcome, o Origin) (string, error) {
	now := s.Now()
	acc, sess := out.account, out.old
	var spent bool
	spent, out.retry = s.RefreshBudget.Spent(sess, now)
	out.transition = transitionFor(tokenState(sess.State(now)), usable(acc), sess.TheftDetectedAt != nil, spent)
	switch out.effect {
	case effectRevoke:
		_, err := s.Sessions.Revoke(ctx, tx, sess.ID, now)
		return "", err
	case effectTheft:
		return "", s.theft(ctx, tx, out, o, now)
	case effectRotate:
		next, raw, err := s.newSession(acc.ID, o, clientOf(sess.Client), sess.Platform, now)
		if err != nil {
			return "", err
		}
		// The statement copies the chain, its login time and its assurance
		// from the old row and advances its refresh budget; next says the
		// same.
		next.SessionID, next.LoginAt, next.Assurance = sess.SessionID, sess.LoginAt, sess.Assurance
		s.RefreshBudget.Advance(sess, next, now)
		if err := s.Sessions.Rotate(ctx, tx, sess.ID, next, now); err != nil {
			return "", err
		}
		out.next = next
		return raw, nil
	}
	return "", nil
}

// theft is the response to the first replay of a rotated token of a
// chain: the chain marked, every session of the owner revoked, its token
// version incremented, its unused one-time tokens voided and the event
// recorded. The chain is marked first:
// when it turns out marked already, the session was read before the lock
// on the owner was granted to this transaction, while a concurrent replay
// ran the response; theft then changes nothing and returns
// models.ErrConflict, and refreshLocked reads the session again, which
// makes it a repeated replay. So the response runs once per chain.
func (s *Service) theft(ctx context.Context, tx *sqlx.Tx, out *refreshOutcome, o Origin, now time.Time) error {
	acc, sess := out.account, out.old
	marked, err := s.Sessions.MarkTheft(ctx, tx, acc.ID, sess.SessionID, now)
	if err != nil {
		return err
	}
	if !marked {
		return models.ErrConflict
	}
	revoked, err := s.endAll(ctx, tx, acc.ID, now)
	if err != nil {
		return err
	}
	out.revoked = len(revoked)
	if _, err := s.Accounts.BumpTokenVersion(ctx, tx, acc.ID, now); err != nil {
		return err
	}
	if err := s.voidTokens(ctx, tx, acc.ID, now); err != nil {
		return err
	}
	return s.record(ctx, tx, models.EventRefreshTheft, acc.ID, sess.SessionID, o,
		map[string]any{"revoked": len(revoked)})
}

func (s *Service) outcome(name string) {
	if s.RefreshOutcome != nil {
		s.RefreshOutcome(name)
	}
}
