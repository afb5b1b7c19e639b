package accounts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// SelfService is what an owner does to its own account (CONTRACT §23), on
// its kind's Service: a change of its profile and its deletion, with the
// purge of deleted accounts after the grace. Fields are dependencies, set
// once before use.
type SelfService struct {
	Engine *Service
}

// ProfileChange names what an owner changes of its profile: a nil field
// is left as it is.
type ProfileChange struct {
	FirstName, LastName, Timezone, Locale *string
}

// UpdateProfile applies change to the owner's profile and, when a value
// changed, records user_updated with the names of the changed fields
// (data.fields), in one transaction. It returns the account as it is.
func (ss *SelfService) UpdateProfile(ctx context.Context, owner, session uuid.UUID, change ProfileChange, o Origin) (*models.Account, error) {
	s := ss.Engine
	var acc *models.Account
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		cur, err := s.Accounts.LockForUpdate(ctx, tx, owner)
		if err != nil {
			return err
		}
		p := models.Profile{FirstName: cur.FirstName, LastName: cur.LastName, Timezone: cur.Timezone, Locale: cur.Locale}
		var fields []string
		for _, f := range []struct {
			name string
			in   *string
			to   *string
		}{
			{"firstName", change.FirstName, &p.FirstName},
			{"lastName", change.LastName, &p.LastName},
			{"timezone", change.Timezone, &p.Timezone},
			{"locale", change.Locale, &p.Locale},
		} {
			if f.in != nil && *f.in != *f.to {
				*f.to = *f.in
				fields = append(fields, f.name)
			}
		}
		if len(fields) == 0 {
			acc = cur
			return nil
		}
		if acc, err = s.Accounts.UpdateProfile(ctx, tx, owner, p, s.Now()); err != nil {
			return err
		}
		return s.record(ctx, tx, models.EventUserUpdated, owner, session, o, map[string]any{"fields": fields})
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	return acc, err
}

// DeleteSelf soft-deletes the owner's account at its own request, as an
// admin's delete does: every session (OAuth ones included), access token
// and socket ends at once, the unused one-time tokens are void, the OAuth
// consents are removed, and account_deleted is recorded with data.self,
// in one transaction; then a notice is mailed. Until the purge after the
// deletion grace an admin can restore the account.
func (ss *SelfService) DeleteSelf(ctx context.Context, owner, session uuid.UUID, o Origin) error {
	s := ss.Engine
	now := s.Now()
	var acc *models.Account
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, owner); err != nil {
			return err
		}
		if err := s.Accounts.SoftDelete(ctx, tx, owner, now); err != nil {
			return err
		}
		revoked, err := s.endAll(ctx, tx, owner, now)
		if err != nil {
			return err
		}
		if err := s.voidTokens(ctx, tx, owner, now); err != nil {
			return err
		}
		if err := endConsents(ctx, tx, s.Kind, owner); err != nil {
			return err
		}
		if err := s.record(ctx, tx, models.EventAccountDeleted, owner, session, o,
			map[string]any{"self": true, "revoked": len(revoked)}); err != nil {
			return err
		}
		acc, err = s.Accounts.ByID(ctx, tx, owner)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	s.notifyEnded(owner, nil)
	s.notices().send(ctx, acc, mail.AccountDeleted)
	return nil
}

// endConsents removes the OAuth consents of owner, of kind, in tx (an
// admin has none).
func endConsents(ctx context.Context, tx *sqlx.Tx, kind Kind, owner uuid.UUID) error {
	if kind.Type != Users.Type {
		return nil
	}
	_, err := models.DeleteConsents(ctx, tx, owner)
	return err
}

// PurgeDeleted deletes for good the users soft-deleted longer ago than
// grace, with every row that refers to them, keeping their security events
// anonymised (see models.PurgeDeletedUsers), and returns how many. Only
// the users' engine purges: admins are never purged.
func (ss *SelfService) PurgeDeleted(ctx context.Context, grace time.Duration) (int, error) {
	s := ss.Engine
	if s.Kind.Type != Users.Type {
		return 0, nil
	}
	total := 0
	for {
		ids, err := models.PurgeDeletedUsers(ctx, s.DB, s.Now().Add(-grace), 100)
		total += len(ids)
		if err != nil {
			return total, fmt.Errorf("purge deleted users: %w", err)
		}
		if len(ids) < 100 {
			return total, nil
		}
	}
}
