package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// Every login ends in one completion step. A first factor (a password at
// login or registration today; a passkey or an identity provider later)
// is handed to complete, which alone decides, under a lock of the owner,
// whether the owner owes a second factor: if so it stores a login
// challenge and answers *MFARequiredError, with no session, cookie or
// token; if not, it opens the session.
//
// By construction no path can open a session that skipped this decision:
// a row that starts a session is written only by openSession, which takes
// a grant, and a grant is made only by complete (nothing owed) and by the
// second step (every owed factor passed). Rows that continue a session
// (refresh, password change, enrolment) are written by continueSession or
// by the rotation statements from the live row they replace, whose
// assurance they keep or raise. Access tokens are signed only by issue,
// from such a row. TestSessionsOpenOnlyThroughCompletion keeps it so.

// MFARequiredError answers a first factor whose owner owes a second one:
// no session was opened. Token is the one-time handle of the second step
// (stored only as its SHA-256), Methods what the owner can use (FactorTOTP,
// FactorRecoveryCode, FactorWebAuthn), ExpiresIn the handle's lifetime.
type MFARequiredError struct {
	Token     string
	Methods   []string
	ExpiresIn time.Duration
}

func (e *MFARequiredError) Error() string { return "accounts: a second factor is required" }

// Is matches ErrMFARequired.
func (e *MFARequiredError) Is(target error) bool { return target == ErrMFARequired }

// firstFactor is a verified first factor and what completing its login
// needs.
type firstFactor struct {
	// method is how the owner proved itself: models.MethodPassword,
	// MethodPasskey or MethodFederated (with provider).
	method   string
	provider string
	// level is the assurance of the first factor alone: 1, or 2 for a
	// user-verified passkey.
	level  int16
	origin Origin
	// event is the security event of the opened session: a login, or a
	// registration.
	event string
	// begin runs first in the transaction: it locks the owner, refusing
	// one that may no longer log in (or, for a registration, creates it),
	// and returns it.
	begin func(ctx context.Context, tx *sqlx.Tx) (*models.Account, error)
}

// owes reports whether a login with this first factor needs a second one
// from an owner with factors: a password or an identity provider does when
// the owner has a second factor; a passkey never does.
func (f firstFactor) owes(factors models.Factors) bool {
	return f.method != models.MethodPasskey && factorsEnabled(factors)
}

// grant is the permission to open a session: every factor its owner owed
// has passed. Only complete and the second step make one.
type grant struct {
	account   *models.Account
	origin    Origin
	client    action.Client
	platform  string
	assurance models.Assurance
	// event is models.EventLogin or EventRegister; a login is counted
	// (loginCount, lastLoginAt) when the session opens.
	event string
	// version is the API version the answer takes the shape of.
	version int
}

// opened is a session openSession wrote, before its tokens are signed.
type opened struct {
	account *models.Account
	session *models.Session
	raw     string
	origin  Origin
	version int
}

// complete is the completion step of every first factor (see above).
func (s *Service) complete(ctx context.Context, f firstFactor) (*Issued, error) {
	var (
		out       *opened
		challenge *MFARequiredError
	)
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		out, challenge = nil, nil
		now := s.Now()
		acc, err := f.begin(ctx, tx)
		if err != nil {
			return err
		}
		factors, err := s.Factors.Factors(ctx, tx, string(s.Kind.Type), acc.ID)
		if err != nil {
			return err
		}
		if f.owes(factors) {
			challenge, err = s.challenge(ctx, tx, f, acc, factors, now)
			return err
		}
		out, err = s.openSession(ctx, tx, grant{
			account: acc, origin: f.origin, client: f.origin.Client, platform: f.origin.Platform,
			assurance: models.Assurance{Methods: []string{f.method}, Level: f.level, AuthenticatedAt: now, Provider: optional(f.provider)}.Factored(now),
			event:     f.event, version: f.origin.Version,
		}, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if challenge != nil {
		return nil, challenge
	}
	return s.loggedIn(ctx, out)
}

// challenge stores the second step of a login whose owner owes a second
// factor, and returns the answer that hands its handle out.
func (s *Service) challenge(ctx context.Context, tx *sqlx.Tx, f firstFactor, acc *models.Account, factors models.Factors, now time.Time) (*MFARequiredError, error) {
	raw, hash, err := auth.NewOpaqueToken() // 32 random bytes as 64 hex, stored as SHA-256
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	o := f.origin
	c := &models.Challenge{
		ID: id, OwnerType: string(s.Kind.Type), OwnerID: acc.ID, TokenHash: hash,
		FirstFactor: f.method, Provider: optional(f.provider), Client: string(o.Client), Platform: o.Platform,
		UserAgent: userAgentText(o.UserAgent), IPAddress: ipAddress(o.IP), ResponseVersion: int16(max(o.Version, 1)),
		ExpiresAt: now.Add(s.MFA.ChallengeTTL), CreatedAt: now,
	}
	if err := s.Challenges.Insert(ctx, tx, c); err != nil {
		return nil, err
	}
	return &MFARequiredError{Token: raw, Methods: factorMethods(factors), ExpiresIn: s.MFA.ChallengeTTL}, nil
}

// openSession writes the first row of a new session for a granted login,
// counts the login and records its event, in the caller's transaction. It
// is the only writer of a new session.
func (s *Service) openSession(ctx context.Context, tx *sqlx.Tx, g grant, now time.Time) (*opened, error) {
	acc := g.account
	if g.event == models.EventLogin {
		updated, err := s.Accounts.RecordLogin(ctx, tx, acc.ID, now)
		if errors.Is(err, models.ErrNotFound) {
			return nil, ErrInactive // deactivated or deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		acc = updated
	}
	sess, raw, err := s.newSession(acc.ID, g.origin, g.client, g.platform, now)
	if err != nil {
		return nil, err
	}
	sess.Assurance = g.assurance
	if err := s.Sessions.Create(ctx, tx, sess); err != nil {
		return nil, err
	}
	data := map[string]any{"methods": []string(g.assurance.Methods)}
	if g.assurance.Provider != nil {
		data["provider"] = *g.assurance.Provider
	}
	if err := s.record(ctx, tx, g.event, acc.ID, sess.SessionID, g.origin, data); err != nil {
		return nil, err
	}
	return &opened{account: acc, session: sess, raw: raw, origin: g.origin, version: g.version}, nil
}

// continueSession writes the next row of the live session old, which the
// caller has just revoked (a password change, an enrolment): same chain,
// client and platform, with assurance a (old's own, or raised), and marks
// old as replaced by it, so that old's refresh token counts as rotated.
func (s *Service) continueSession(ctx context.Context, tx *sqlx.Tx, old *models.Session, a models.Assurance, o Origin, now time.Time) (*models.Session, string, error) {
	sess, raw, err := s.newSession(old.OwnerID, o, clientOf(old.Client), old.Platform, now)
	if err != nil {
		return nil, "", err
	}
	sess.SessionID, sess.LoginAt, sess.Assurance = old.SessionID, old.LoginAt, a
	sess.RefreshWindowAt, sess.RefreshCount = old.RefreshWindowAt, old.RefreshCount // no new refresh budget
	if err := s.Sessions.Create(ctx, tx, sess); err != nil {
		return nil, "", err
	}
	if err := s.Sessions.MarkReplaced(ctx, tx, old.OwnerID, old.ID, sess.ID, now); err != nil {
		return nil, "", err
	}
	return sess, raw, nil
}

// loggedIn runs what follows every completed login, after its commit, and
// signs its tokens. It is the one place for the side effects of a
// successful login: the per-account slow-down forgets the client's
// failures and trusts it, by address and by device, and the answer
// carries the device value the client should keep. A login that passed a
// second factor (level 2) earns trust for second factors too
// (trustClient); one that did not, because the account had none when it
// ran, earns trust for passwords only (trustPassword), so that a client
// that logged in before the owner turned a second factor on gains no
// unthrottled guesses at it.
func (s *Service) loggedIn(ctx context.Context, o *opened) (*Issued, error) {
	t := throttled{s.Throttle}
	var device string
	if o.session.Assurance.Level >= 2 {
		device = t.trustClient(ctx, o.account.Email, o.origin)
	} else {
		device = t.trustPassword(ctx, o.account.Email, o.origin)
	}
	iss, err := s.issue(o.account, o.session, o.raw)
	if err != nil {
		return nil, err
	}
	iss.Version = max(o.version, 1)
	iss.Device = device
	return iss, nil
}

// optional is s as a nullable column: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
