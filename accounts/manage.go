package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Management is what admins do to an owner kind's accounts on its
// Service: list them, deactivate, delete and restore them, end their
// sessions and remove their second factors. Fields are dependencies, set
// once before use.
type Management struct {
	Engine *Service
}

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
func (m *Management) List(ctx context.Context, f ListFilter) ([]models.Account, string, error) {
	after, err := DecodeCursor(f.Cursor)
	if err != nil {
		return nil, "", err
	}
	list, err := m.Engine.Accounts.List(ctx, m.Engine.DB, models.AccountFilter{
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
func (m *Management) SetActive(ctx context.Context, id uuid.UUID, active bool, by Actor) (*models.Account, error) {
	event := models.EventAccountDeactivated
	if active {
		event = models.EventAccountActivated
	}
	return m.manage(ctx, id, event, !active, by, func(tx *sqlx.Tx) error {
		return m.Engine.Accounts.SetActive(ctx, tx, id, active, m.Engine.Now())
	})
}

// Delete soft-deletes the account id (an earlier deletion keeps its time),
// ends its sessions, access tokens and sockets at once, and removes its
// OAuth consents.
func (m *Management) Delete(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	return m.manage(ctx, id, models.EventAccountDeleted, true, by, func(tx *sqlx.Tx) error {
		if err := m.Engine.Accounts.SoftDelete(ctx, tx, id, m.Engine.Now()); err != nil {
			return err
		}
		return endConsents(ctx, tx, m.Engine.Kind, id)
	})
}

// Restore clears the soft delete of the account id. Its sessions stay
// ended: the owner logs in again.
func (m *Management) Restore(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	return m.manage(ctx, id, models.EventAccountRestored, false, by, func(tx *sqlx.Tx) error {
		return m.Engine.Accounts.Restore(ctx, tx, id, m.Engine.Now())
	})
}

// RevokeSessions is a logout-all on the owner's behalf: its token version
// +1 and every session ended, recorded as logoutall with the admin's id.
func (m *Management) RevokeSessions(ctx context.Context, id uuid.UUID, by Actor) error {
	return m.Engine.LogoutAll(ctx, id, uuid.Nil, by.Origin, by.data())
}

// ResetMFA removes every second factor of the account id (its TOTP secret,
// recovery codes and passkeys), lifts a spent second-factor budget, and
// ends its sessions, access tokens and sockets at once, recorded as
// mfa_reset with the admin's id, and mails the owner: the support desk's
// answer to a lost factor.
func (m *Management) ResetMFA(ctx context.Context, id uuid.UUID, by Actor) (*models.Account, error) {
	acc, err := m.manage(ctx, id, models.EventMFAReset, true, by, func(tx *sqlx.Tx) error {
		if _, err := m.Engine.Factors.DeleteTOTP(ctx, tx, string(m.Engine.Kind.Type), id); err != nil {
			return err
		}
		if _, err := m.Engine.Passkeys.RemoveAll(ctx, tx, string(m.Engine.Kind.Type), id); err != nil {
			return err
		}
		if err := m.Engine.MFAFailures.Clear(ctx, tx, id); err != nil {
			return err
		}
		return m.Engine.Factors.DeleteRecoveryCodes(ctx, tx, string(m.Engine.Kind.Type), id)
	})
	if err != nil {
		return nil, err
	}
	m.Engine.notices().send(ctx, acc, mail.MFAReset)
	return acc, nil
}

// ResetMFAByEmail is ResetMFA of the owner with that e-mail address, done
// by an operator on the server (see Actor.data); ErrNotFound when there is
// none.
func (m *Management) ResetMFAByEmail(ctx context.Context, email string) (*models.Account, error) {
	acc, err := m.Engine.Accounts.ByEmail(ctx, m.Engine.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return m.ResetMFA(ctx, acc.ID, Actor{Origin: Origin{UserAgent: "server admin resetmfa"}})
}

// manage runs change on the locked account id with its security event, in
// one transaction, ending every session and voiding the unused one-time
// tokens when end is set, and returns the account as changed. An unknown id is ErrNotFound.
func (m *Management) manage(ctx context.Context, id uuid.UUID, event string, end bool, by Actor, change func(tx *sqlx.Tx) error) (*models.Account, error) {
	var acc *models.Account
	err := models.Transact(ctx, m.Engine.DB, func(tx *sqlx.Tx) error {
		if _, err := m.Engine.Accounts.LockForUpdate(ctx, tx, id); err != nil {
			return err
		}
		if err := change(tx); err != nil {
			return err
		}
		data := by.data()
		if end {
			revoked, err := m.Engine.endAll(ctx, tx, id, m.Engine.Now())
			if err != nil {
				return err
			}
			data["revoked"] = len(revoked)
			if err := m.Engine.voidTokens(ctx, tx, id, m.Engine.Now()); err != nil {
				return err
			}
		}
		if err := m.Engine.record(ctx, tx, event, id, uuid.Nil, by.Origin, data); err != nil {
			return err
		}
		var err error
		acc, err = m.Engine.Accounts.ByID(ctx, tx, id)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if end {
		m.Engine.notifyEnded(id, nil)
	}
	return acc, nil
}
