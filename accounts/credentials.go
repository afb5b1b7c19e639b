package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// MailBound is the number of mails of one purpose an address may receive
// within MailBoundWindow; requests beyond it are answered the same and send
// nothing.
const (
	MailBound       = 3
	MailBoundWindow = time.Hour
)

// V1RequestPasswordResetTask is the job that does the work of a password
// reset request (look the address up, check the bound, issue the token,
// queue the mail) off the request path, so that the request takes the same
// time whether or not the address exists. Its data is {"email": "..."}.
const V1RequestPasswordResetTask = "V1RequestPasswordResetTask"

// MailSettings configures the mail flows of a Service.
type MailSettings struct {
	Mailer   *mail.Mailer
	Enqueuer *queues.Enqueuer
	// ResetURL and VerifyURL are the links, with {token} replaced.
	ResetURL, VerifyURL string
	ResetTTL, VerifyTTL time.Duration
	// RequireVerified refuses login of an unverified address.
	RequireVerified bool
}

func (s *Service) mailAvailable() bool { return s.Mail != nil && s.Mail.Mailer.Available() }

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
func (s *Service) ChangePassword(ctx context.Context, owner, session uuid.UUID, current, next string, o Origin) (*Issued, error) {
	acc, err := s.Accounts.ByID(ctx, s.DB, owner)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := s.slowedDown(ctx, acc.Email, o); err != nil {
		return nil, err
	}
	ok, _, err := s.passwordMatches(ctx, acc, current)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.throttleFailed(ctx, acc.Email, o)
		return nil, ErrInvalidCredentials
	}
	device := s.trustPassword(ctx, acc.Email, o)
	if next == current {
		return nil, ErrSamePassword
	}
	encoded, salt, err := s.Hasher.Hash(ctx, next)
	if err != nil {
		return nil, err
	}
	var (
		ended []uuid.UUID
		sess  *models.Session
		raw   string
	)
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		var err error
		acc, sess, raw, ended, err = s.changePassword(ctx, tx, acc.Password, owner, session, encoded, salt, o)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.notifyEnded(owner, ended)
	iss, err := s.issue(acc, sess, raw)
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
func (s *Service) changePassword(ctx context.Context, tx *sqlx.Tx, checked string, owner, session uuid.UUID, encoded, salt string, o Origin) (*models.Account, *models.Session, string, []uuid.UUID, error) {
	now := s.Now()
	if _, err := s.lockUsable(ctx, tx, owner, checked); err != nil {
		return nil, nil, "", nil, err // a password changed concurrently is stale: ErrInvalidCredentials
	}
	if err := s.Accounts.SetPassword(ctx, tx, owner, encoded, salt, now); err != nil {
		return nil, nil, "", nil, err
	}
	if err := s.voidTokens(ctx, tx, owner, now); err != nil {
		return nil, nil, "", nil, err
	}
	sess, raw, revoked, err := s.restartSession(ctx, tx, owner, session, nil, o, now)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if err := s.record(ctx, tx, models.EventPasswordChanged, owner, session, o,
		map[string]any{"revoked": len(revoked) - 1}); err != nil {
		return nil, nil, "", nil, err
	}
	acc, err := s.Accounts.ByID(ctx, tx, owner)
	return acc, sess, raw, without(revoked, session), err
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

// RequestPasswordReset queues the work of a reset request for email. The
// request itself does the same thing for every address, so that neither
// its answer nor its time tells whether the address has an account.
func (s *Service) RequestPasswordReset(ctx context.Context, email string, o Origin) error {
	if !s.mailAvailable() {
		return ErrMailUnavailable
	}
	_, err := s.Mail.Enqueuer.Enqueue(queues.MailQueue, V1RequestPasswordResetTask, map[string]any{
		"email": strings.ToLower(strings.TrimSpace(email)), "ip": o.IP, "userAgent": o.UserAgent,
	})
	return err
}

// RunPasswordResetRequest is the job of a reset request made from o: an
// active owner of email, within the mail bound, gets a new reset token
// (voiding its earlier ones) and a mail with its link, and the request is
// recorded as a security event of the owner. Anything else does nothing.
func (s *Service) RunPasswordResetRequest(ctx context.Context, email string, o Origin) error {
	acc, err := s.Accounts.ByEmail(ctx, s.DB, email)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !acc.IsActive || acc.DeletedAt != nil {
		return nil
	}
	_, err = s.sendToken(ctx, acc, models.PurposePasswordReset, &o)
	return err
}

// RequestEmailVerification sends a verification mail to the owner, unless
// its address is verified already or the bound is reached. It reports
// whether a mail was queued.
func (s *Service) RequestEmailVerification(ctx context.Context, owner uuid.UUID) (bool, error) {
	if !s.mailAvailable() {
		return false, ErrMailUnavailable
	}
	acc, err := s.Account(ctx, owner)
	if err != nil {
		return false, err
	}
	if acc.EmailVerifiedAt != nil {
		return false, nil
	}
	return s.sendToken(ctx, acc, models.PurposeEmailVerify, nil)
}

// sendToken issues a token of purpose to acc unless MailBound tokens of
// that purpose were issued within the window (counted under a lock of the
// owner, so concurrent requests cannot pass the bound together), then
// queues its mail. The mail's content lives until the token expires. With
// a request origin, the request is recorded as password_reset_requested in
// the same transaction, whether or not the bound let a mail go.
func (s *Service) sendToken(ctx context.Context, acc *models.Account, purpose string, requested *Origin) (bool, error) {
	if !s.mailAvailable() {
		return false, ErrMailUnavailable
	}
	kind, link, ttl := mail.PasswordReset, s.Mail.ResetURL, s.Mail.ResetTTL
	if purpose == models.PurposeEmailVerify {
		kind, link, ttl = mail.EmailVerify, s.Mail.VerifyURL, s.Mail.VerifyTTL
	}
	raw, hash, err := auth.NewRefreshToken() // the same form: 32 random bytes, 64 hex, stored as SHA-256
	if err != nil {
		return false, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return false, err
	}
	now := s.Now()
	tok := &models.OneTimeToken{ID: id, OwnerType: string(s.Kind.Type), OwnerID: acc.ID, Purpose: purpose,
		TokenHash: hash, ExpiresAt: now.Add(ttl), CreatedAt: now}
	issued := false
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Accounts.LockForUpdate(ctx, tx, acc.ID); err != nil {
			return err
		}
		n, err := s.OneTime.CountSince(ctx, tx, tok.OwnerType, acc.ID, purpose, now.Add(-MailBoundWindow))
		if err != nil {
			return err
		}
		if issued = n < MailBound; issued {
			if err := s.OneTime.Issue(ctx, tx, tok); err != nil {
				return err
			}
		}
		if requested == nil {
			return nil
		}
		return s.record(ctx, tx, models.EventPasswordResetRequested, acc.ID, uuid.Nil, *requested,
			map[string]any{"mailed": issued})
	})
	if err != nil || !issued {
		if !issued && err == nil {
			s.Log.Info("mail bound reached: nothing sent", "purpose", purpose, "ownerType", tok.OwnerType, "ownerId", acc.ID.String())
		}
		return false, err
	}
	msg := mail.Message{Kind: kind, To: acc.Email, Locale: acc.Locale, Link: strings.Replace(link, "{token}", raw, 1), ValidFor: ttl}
	if _, err := s.Mail.Mailer.Enqueue(ctx, msg, tok.ExpiresAt); err != nil {
		return false, fmt.Errorf("queue %s mail: %w", kind, err)
	}
	return true, nil
}

// voidTokens voids the owner's unused one-time tokens of every purpose
// (reset, verification), in the transaction of a change that ends its
// password or its sessions: a link mailed before such a change must not
// outlive it.
func (s *Service) voidTokens(ctx context.Context, tx *sqlx.Tx, owner uuid.UUID, now time.Time) error {
	_, err := s.OneTime.VoidAll(ctx, tx, string(s.Kind.Type), owner, now)
	return err
}

// ResetPassword sets a new password with a reset token: the token is
// consumed, the owner's other unused one-time tokens voided, the token
// version incremented and every session revoked, in
// one transaction. It does not log in, but the account then trusts the
// client that completed it (for passwords: see trustPassword), whose device value it
// returns. The token is checked before the password is hashed, so that a
// random token costs no hashing work; the transaction takes it only if it
// is still unused, so of concurrent resets with one token exactly one
// succeeds.
func (s *Service) ResetPassword(ctx context.Context, raw, password string, o Origin) (device string, err error) {
	if !auth.WellFormedRefreshToken(raw) {
		return "", ErrInvalidToken
	}
	hash := auth.HashRefreshToken(raw)
	tok, err := s.OneTime.Live(ctx, s.DB, models.PurposePasswordReset, hash, s.Now())
	if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerType != string(s.Kind.Type)) {
		return "", ErrInvalidToken
	}
	if err != nil {
		return "", err
	}
	encoded, salt, err := s.Hasher.Hash(ctx, password)
	if err != nil {
		return "", err
	}
	now := s.Now()
	var (
		acc     *models.Account
		removed []mail.Removal
	)
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		var err error
		acc, removed, err = s.resetPassword(ctx, tx, hash, tok.OwnerID, encoded, salt, now, o)
		return err
	})
	if err != nil {
		return "", err
	}
	s.notifyEnded(acc.ID, nil)
	s.noticeRemoved(ctx, acc, removed)
	return s.trustPassword(ctx, acc.Email, o), nil
}

// resetPassword is the transaction of ResetPassword: it consumes the token
// with hash, which must still be the live token of owner, and sets the
// owner's password; an owner whose address was never verified also loses
// every sign-in method and second factor anyone may have added (see
// clearUnverified). It returns the owner and what was removed.
func (s *Service) resetPassword(ctx context.Context, tx *sqlx.Tx, hash string, owner uuid.UUID, encoded, salt string, now time.Time, o Origin) (*models.Account, []mail.Removal, error) {
	tok, err := s.OneTime.Consume(ctx, tx, models.PurposePasswordReset, hash, now)
	if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerID != owner) {
		return nil, nil, ErrInvalidToken // used, voided or expired since it was checked
	}
	if err != nil {
		return nil, nil, err
	}
	acc, err := s.Accounts.LockForUpdate(ctx, tx, owner)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (!acc.IsActive || acc.DeletedAt != nil)) {
		return nil, nil, ErrInvalidToken
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.Accounts.SetPassword(ctx, tx, owner, encoded, salt, now); err != nil {
		return nil, nil, err
	}
	if err := s.voidTokens(ctx, tx, owner, now); err != nil {
		return nil, nil, err
	}
	if _, err := s.Accounts.BumpTokenVersion(ctx, tx, owner, now); err != nil {
		return nil, nil, err
	}
	if err := s.MFAFailures.Clear(ctx, tx, owner); err != nil { // lifts a spent second-factor budget
		return nil, nil, err
	}
	revoked, err := s.endAll(ctx, tx, owner, now)
	if err != nil {
		return nil, nil, err
	}
	removed, err := s.clearUnverified(ctx, tx, acc, o, now)
	if err != nil {
		return nil, nil, err
	}
	data := map[string]any{"revoked": len(revoked), "removed": len(removed)}
	return acc, removed, s.record(ctx, tx, models.EventPasswordReset, owner, uuid.Nil, o, data)
}

// VerifyEmail consumes a verification token and marks its owner's address
// verified, in one transaction with its security event (from o).
func (s *Service) VerifyEmail(ctx context.Context, raw string, o Origin) (*models.Account, error) {
	if !auth.WellFormedRefreshToken(raw) {
		return nil, ErrInvalidToken
	}
	now := s.Now()
	var acc *models.Account
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		tok, err := s.OneTime.Consume(ctx, tx, models.PurposeEmailVerify, auth.HashRefreshToken(raw), now)
		if errors.Is(err, models.ErrNotFound) || (err == nil && tok.OwnerType != string(s.Kind.Type)) {
			return ErrInvalidToken
		}
		if err != nil {
			return err
		}
		acc, err = s.Accounts.VerifyEmail(ctx, tx, tok.OwnerID, now)
		if errors.Is(err, models.ErrNotFound) {
			return ErrInvalidToken
		}
		if err != nil {
			return err
		}
		return s.record(ctx, tx, models.EventEmailVerified, acc.ID, uuid.Nil, o, nil)
	})
	if err != nil {
		return nil, err
	}
	return acc, nil
}
