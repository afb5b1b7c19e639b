package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// ChangePassword replaces the owner's password after checking the current
// one, increments its token version (every access token dies) and revokes
// every session, all in one transaction. The caller's session continues:
// its live row is replaced by a new one of the same chain (same session id,
// client and platform), so the caller's previous refresh token is a replay
// if presented again.
//
// The check of the current password is a login attempt for the Throttle,
// keyed by the account's e-mail: it may be refused with a
// *SlowedDownError, and its outcome is reported (a right password makes
// the account trust the client, for passwords only: see trustPassword).
func (c *Credentials) ChangePassword(ctx context.Context, owner, session uuid.UUID, current, next string, o Origin) (*Issued, error) {
	acc, err := c.Engine.Accounts.ByID(ctx, c.Engine.DB, owner)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := (throttled{c.Engine.Throttle}).slowedDown(ctx, acc.Email, o); err != nil {
		return nil, err
	}
	ok, _, err := passwordMatches(ctx, c.Engine.Hasher, acc, current)
	if err != nil {
		return nil, err
	}
	if !ok {
		throttled{c.Engine.Throttle}.failed(ctx, acc.Email, o)
		return nil, ErrInvalidCredentials
	}
	device := throttled{c.Engine.Throttle}.trustPassword(ctx, acc.Email, o)
	if next == current {
		return nil, ErrSamePassword
	}
	encoded, salt, err := c.Engine.Hasher.Hash(ctx, next)
	if err != nil {
		return nil, err
	}
	var (
		ended []uuid.UUID
		sess  *models.Session
		raw   string
	)
	err = models.Transact(ctx, c.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		acc, sess, raw, ended, err = c.changePassword(ctx, tx, acc.Password, owner, session, encoded, salt, o)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	c.Engine.notifyEnded(owner, ended)
	iss, err := c.Engine.issue(acc, sess, raw)
	if err != nil {
		return nil, err
	}
	iss.Device = device
	return iss, nil
}

// changePassword is the transaction of ChangePassword: checked is the hash
// the current password was verified against. It returns the updated
// account, the caller's new session row and its refresh token, and the
// other sessions it ended.
func (c *Credentials) changePassword(ctx context.Context, tx *sqlx.Tx, checked string, owner, session uuid.UUID, encoded, salt string, o Origin) (*models.Account, *models.Session, string, []uuid.UUID, error) {
	now := c.Engine.Now()
	if _, err := c.Engine.lockUsable(ctx, tx, owner, checked); err != nil {
		return nil, nil, "", nil, err // a password changed concurrently is stale: ErrInvalidCredentials
	}
	if err := c.Engine.Accounts.SetPassword(ctx, tx, owner, encoded, salt, now); err != nil {
		return nil, nil, "", nil, err
	}
	if err := c.Engine.voidTokens(ctx, tx, owner, now); err != nil {
		return nil, nil, "", nil, err
	}
	sess, raw, revoked, err := c.Engine.restartSession(ctx, tx, owner, session, nil, o, now)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if err := c.Engine.record(ctx, tx, models.EventPasswordChanged, owner, session, o,
		map[string]any{"revoked": len(revoked) - 1}); err != nil {
		return nil, nil, "", nil, err
	}
	acc, err := c.Engine.Accounts.ByID(ctx, tx, owner)
	return acc, sess, raw, without(revoked, session), err
}
