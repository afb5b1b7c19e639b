package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Actor is who manages an account on its owner's behalf: an admin, whose
// id goes into the security event of every change as data.adminId.
type Actor struct {
	AdminID uuid.UUID
	Origin  Origin
}

// data is what a security event records of the actor: the admin's id, or
// "by": "operator" for a command run on the server (no admin id).
func (a Actor) data() map[string]any {
	if a.AdminID == uuid.Nil {
		return map[string]any{"by": "operator"}
	}
	return map[string]any{"adminId": a.AdminID.String()}
}

// ListFilter selects the accounts List returns.
type ListFilter struct {
	// Query is an e-mail substring (any case); empty matches all.
	Query string
	// Status is one of models.StatusAll, StatusActive, StatusInactive,
	// StatusDeleted; empty means all.
	Status string
	// Cursor continues a listing (empty: from the newest account).
	Cursor string
	// Limit bounds the page (at least 1).
	Limit int
}

// List returns a page of the kind's accounts, newest first, and the cursor
// of the next page (empty when there is none).
func (s *Service) List(ctx context.Context, f ListFilter) ([]models.Account, string, error) {
	after, err := DecodeCursor(f.Cursor)
	if err != nil {
		return nil, "", err
	}
	list, err := s.Accounts.List(ctx, s.DB, models.AccountFilter{
		Query: f.Query, Status: f.Status, After: after, Limit: f.Limit + 1,
	})
	if err != nil {
		return nil, "", err
	}
	if len(list) <= f.Limit {
		return list, "", nil
	}
	last := list[f.Limit-1]
	return list[:f.Limit], EncodeCursor(models.Keyset{CreatedAt: last.CreatedAt, ID: last.ID}), nil
}

// SetActive activates or deactivates the account id. Deactivation ends its
// sessions, access tokens and sockets at once. The change and its event
// (account_activated or account_deactivated) are one transaction.
func (s *Service) SetActive(ctx context.Context, id uuid.UUID, active bool, by Actor) (*models.Account, error) {
	event := models.EventAccountDeactivated
	if active {
		event = models.EventAccountActivated
	}
	return s.manage(ctx, id, event, !active, by, func(tx *sqlx.Tx) error {
		return s.Accounts.SetActive(ctx, tx, id, active, s.Now())
	})
}

// Delete soft-deletes the account id (an earlier deletion keeps its time)
// and ends its sessions, access tokens and sockets at once.
func (s *Service) Delete(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	return s.manage(ctx, id, models.EventAccountDeleted, true, by, func(tx *sqlx.Tx) error {
		return s.Accounts.SoftDelete(ctx, tx, id, s.Now())
	})
}

// Restore clears the soft delete of the account id. Its sessions stay
// ended: the owner logs in again.
func (s *Service) Restore(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	return s.manage(ctx, id, models.EventAccountRestored, false, by, func(tx *sqlx.Tx) error {
		return s.Accounts.Restore(ctx, tx, id, s.Now())
	})
}

// RevokeSessions is a logout-all on the owner's behalf: its token version
// +1 and every session ended, recorded as logoutall with the admin's id.
func (s *Service) RevokeSessions(ctx context.Context, id uuid.UUID, by Actor) error {
	return s.LogoutAll(ctx, id, uuid.Nil, by.Origin, by.data())
}

// ResetMFA removes every second factor of the account id (its TOTP secret,
// recovery codes and passkeys), lifts a spent second-factor budget, and
// ends its sessions, access tokens and sockets at once, recorded as
// mfa_reset with the admin's id, and mails the owner: the support desk's
// answer to a lost factor.
func (s *Service) ResetMFA(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	acc, err := s.manage(ctx, id, models.EventMFAReset, true, by, func(tx *sqlx.Tx) error {
		if _, err := s.Factors.DeleteTOTP(ctx, tx, string(s.Kind.Type), id); err != nil {
			return err
		}
		if _, err := s.Passkeys.RemoveAll(ctx, tx, string(s.Kind.Type), id); err != nil {
			return err
		}
		if err := s.MFAFailures.Clear(ctx, tx, id); err != nil {
			return err
		}
		return s.Factors.DeleteRecoveryCodes(ctx, tx, string(s.Kind.Type), id)
	})
	if err != nil {
		return nil, err
	}
	s.notice(ctx, acc, mail.MFAReset)
	return acc, nil
}

// ResetMFAByEmail is ResetMFA of the owner with that e-mail address, done
// by an operator on the server (see Actor.data); ErrNotFound when there is
// none.
func (s *Service) ResetMFAByEmail(ctx context.Context, email string) (*models.Account, error) {
	acc, err := s.Accounts.ByEmail(ctx, s.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.ResetMFA(ctx, acc.ID, Actor{Origin: Origin{UserAgent: "server admin resetmfa"}})
}

// manage runs change on the locked account id with its security event, in
// one transaction, ending every session and voiding the unused one-time
// tokens when end is set, and returns the account as changed. An unknown id is ErrNotFound.
func (s *Service) manage(ctx context.Context, id uuid.UUID, event string, end bool, by Actor, change func(tx *sqlx.Tx) error) (*models.Account, error) {
	var acc *models.Account
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, id); err != nil {
			return err
		}
		if err := change(tx); err != nil {
			return err
		}
		data := by.data()
		if end {
			revoked, err := s.endAll(ctx, tx, id, s.Now())
			if err != nil {
				return err
			}
			data["revoked"] = len(revoked)
			if err := s.voidTokens(ctx, tx, id, s.Now()); err != nil {
				return err
			}
		}
		if err := s.record(ctx, tx, event, id, uuid.Nil, by.Origin, data); err != nil {
			return err
		}
		var err error
		acc, err = s.Accounts.ByID(ctx, tx, id)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if end {
		s.notifyEnded(id, nil)
	}
	return acc, nil
}
