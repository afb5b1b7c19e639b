package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Origin describes where a session is opened from.
type Origin struct {
	Client    action.Client
	Platform  string
	IP        string
	UserAgent string
	// Device is the device value the client presented (its device cookie,
	// or an app's deviceToken argument), "" if none: see Throttle.
	Device string
	// Version is the API version of the action the request came through
	// (0 counts as 1): a login's second step answers in the shape its
	// first step would have.
	Version int
}

// Issued is the outcome of a register, login or refresh: the account, its
// new session, and the two tokens. RefreshToken is the raw token, which is
// never stored. Device, set by the flows that authenticate the client
// (register, login, password change), is the device value it should keep.
type Issued struct {
	Account         *models.Account
	Session         *models.Session
	AccessToken     string
	AccessExpiresAt time.Time
	RefreshToken    string
	// Device is the device value the client should keep (see trustClient),
	// "" when there is none to set.
	Device string
	// Version is the API version whose answer shape a completed login
	// takes (that of its first step); 1 for anything else.
	Version int
	// RecoveryCodesRemaining, when not nil, counts the owner's unused
	// recovery codes after a login completed with one.
	RecoveryCodesRemaining *int
}

// Service runs one Kind's accounts and sessions. Fields are dependencies,
// set once before use.
type Service struct {
	Kind       Kind
	DB         *sqlx.DB
	Accounts   *models.AccountStore
	Sessions   *models.SessionStore
	Tokens     *auth.Tokens
	Hasher     *auth.Hasher
	RefreshTTL time.Duration
	// Now returns the current time in UTC, truncated to microseconds.
	Now func() time.Time
	Log *slog.Logger
	// Ended, when set, is called after every commit that ended sessions of
	// an owner (logout, revocation, logout-all, theft, password change or
	// reset, deactivation, deletion), so that the connections opened in
	// them (sockets) can be closed: sessions lists the ended sessions, nil
	// meaning every session of the owner.
	Ended func(owner action.OwnerType, id uuid.UUID, sessions []uuid.UUID)
	// RefreshOutcome, when set, is called once per refresh with its
	// outcome: rotated, limited, malformed, unknown, expired, revoked,
	// inactive, replay or replay_repeated.
	RefreshOutcome func(outcome string)
	// Throttle, when set, slows repeated failed logins per e-mail.
	Throttle Throttle
	// RefreshBudget bounds the refreshes of each session; the zero value
	// bounds nothing.
	RefreshBudget models.RefreshBudget
	// OneTime stores the one-time tokens of the credential flows.
	OneTime models.TokenStore
	// Events stores the security events, written in the transaction of
	// the change each records.
	Events models.EventStore
	// Mail configures the mail flows (reset, verification); nil disables
	// them (ErrMailUnavailable).
	Mail *MailSettings
	// Notices sends the notification mails of changes to the second
	// factor; nil (or a mailer without a sender) sends none.
	Notices *mail.Mailer
	// MFA configures the second factor.
	MFA MFASettings
	// Challenges stores the pending second steps of logins.
	Challenges models.ChallengeStore
	// Factors stores the second factors.
	Factors models.FactorStore
	// MFAFailures keeps the owners' second-factor budgets.
	MFAFailures *models.MFAFailureStore
	// Identities stores the users' identity-provider identities (users
	// only: an admin has none).
	Identities models.IdentityStore
	// ProviderName, when set, gives the label of an identity provider id
	// for the mails ("Google" for google).
	ProviderName func(id string) string
	// Passkeys stores the passkeys and the owners' WebAuthn user handles.
	Passkeys models.PasskeyStore
}

// NewService returns a Service for kind with stores over db, their queries
// prepared on db.
func NewService(kind Kind, db *sqlx.DB, tokens *auth.Tokens, hasher *auth.Hasher, refreshTTL time.Duration, log *slog.Logger) *Service {
	return &Service{
		Kind:        kind,
		DB:          db,
		Accounts:    models.NewAccountStore(kind.Tables).Prepared(db),
		Sessions:    models.NewSessionStore(kind.Tables).Prepared(db),
		Tokens:      tokens,
		Hasher:      hasher,
		RefreshTTL:  refreshTTL,
		Now:         func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
		Log:         log,
		OneTime:     models.TokenStore{}.Prepared(db),
		Events:      models.EventStore{}.Prepared(db),
		MFA:         DefaultMFASettings(),
		Challenges:  models.ChallengeStore{}.Prepared(db),
		Factors:     models.FactorStore{}.Prepared(db),
		MFAFailures: models.NewMFAFailureStore(kind.Tables).Prepared(db),
		Identities:  models.IdentityStore{}.Prepared(db),
		Passkeys:    models.PasskeyStore{}.Prepared(db),
	}
}

// Load is the authenticator's loader for this kind. In one statement it
// reads the owner, which must exist, be active and not be soft-deleted (so
// that deactivating or deleting an account ends its access tokens at once),
// and checks that the token's session is live (so that ending a session
// ends its access tokens at once); with needs.Assurance (the framework
// asks for it for an action with a Spec.Reauth), the same statement reads
// how the session was authenticated.
func (s *Service) Load(ctx context.Context, id, sessionID uuid.UUID, needs action.Needs) (auth.Principal, error) {
	row, err := s.Accounts.ByIDWithSession(ctx, s.DB, id, sessionID, s.Now(), needs.Assurance)
	if errors.Is(err, models.ErrNotFound) {
		return auth.Principal{}, auth.ErrUnknownOwner
	}
	if err != nil {
		return auth.Principal{}, err
	}
	acc := &row.Account
	if !acc.IsActive || acc.DeletedAt != nil {
		return auth.Principal{}, auth.ErrUnknownOwner
	}
	if row.SessionExpiresAt == nil {
		return auth.Principal{}, auth.ErrSessionEnded
	}
	a := row.Session
	return auth.Principal{TokenVersion: acc.TokenVersion, Locale: acc.Locale, Record: acc,
		SessionExpiresAt: *row.SessionExpiresAt,
		Assurance: action.Assurance{Methods: a.Methods, Level: int(a.Level), AuthenticatedAt: a.AuthenticatedAt,
			SecondFactor: acc.MFAEnabled, FactorAt: deref(a.FactorAt)},
	}, nil
}

// OwnerKind returns s.Kind: the account actions name themselves after it.
func (s *Service) OwnerKind() Kind { return s.Kind }

// Owner returns the auth.Owner declaration of this kind.
func (s *Service) Owner() auth.Owner { return auth.Owner{Type: s.Kind.Type, Load: s.Load} }

// newSession prepares a session row for owner with a fresh refresh token,
// the first of a new chain (a rotation sets the chain of the old row).
func (s *Service) newSession(owner uuid.UUID, o Origin, client action.Client, platform string, now time.Time) (*models.Session, string, error) {
	raw, hash, err := auth.NewOpaqueToken()
	if err != nil {
		return nil, "", err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, "", err
	}
	sess := &models.Session{
		ID:               id,
		OwnerID:          owner,
		RefreshTokenHash: hash,
		ExpiresAt:        now.Add(s.RefreshTTL),
		UserAgent:        userAgentJSON(o.UserAgent),
		IPAddress:        ipAddress(o.IP),
		Client:           string(client),
		Platform:         platform,
		CreatedAt:        now,
		UpdatedAt:        now,
		SessionID:        id,
		LoginAt:          now,
	}
	return sess, raw, nil
}

// issue signs the access token of a committed session row, with the
// informational claims of how the session was authenticated.
func (s *Service) issue(acc *models.Account, sess *models.Session, raw string) (*Issued, error) {
	how := auth.Authentication{Methods: sess.Methods, Time: sess.AuthenticatedAt}
	token, exp, err := s.Tokens.IssueAuthenticated(s.Kind.Type, acc.ID, sess.SessionID, acc.TokenVersion, action.Client(sess.Client), how)
	if err != nil {
		return nil, fmt.Errorf("issue access token: %w", err)
	}
	return &Issued{Account: acc, Session: sess, AccessToken: token, AccessExpiresAt: exp, RefreshToken: raw, Version: 1}, nil
}

// record writes a security event of the owner in db (the transaction of
// the change it records), from the request o, about session (uuid.Nil:
// none). data, when not nil, is marshalled to the event's JSON object.
func (s *Service) record(ctx context.Context, db models.DB, typ string, owner, session uuid.UUID, o Origin, data map[string]any) error {
	ev := &models.SecurityEvent{
		OwnerType: string(s.Kind.Type), OwnerID: owner, Type: typ,
		IPAddress: ipAddress(o.IP), UserAgent: userAgentText(o.UserAgent),
		CreatedAt: s.Now(),
	}
	if session != uuid.Nil {
		ev.SessionID = &session
	}
	if data != nil {
		raw, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("security event data: %w", err)
		}
		ev.Data = raw
	}
	return s.Events.Insert(ctx, db, ev)
}

// notifyEnded reports ended sessions of owner after their commit: nil
// means every session.
func (s *Service) notifyEnded(owner uuid.UUID, sessions []uuid.UUID) {
	if s.Ended != nil && (sessions == nil || len(sessions) > 0) {
		s.Ended(s.Kind.Type, owner, sessions)
	}
}

// userAgentJSON stores the User-Agent header as {"raw": "..."} (see
// userAgentText).
func userAgentJSON(ua string) []byte {
	text := userAgentText(ua)
	if text == nil {
		return nil
	}
	raw, _ := json.Marshal(userAgentDoc{Raw: *text})
	return raw
}

// userAgentDoc is the stored form of a User-Agent header.
type userAgentDoc struct {
	Raw string `json:"raw"`
}

// userAgentText cleans the User-Agent header for storage: valid UTF-8,
// without NUL (which PostgreSQL refuses), at most 512 bytes; nil when
// empty.
func userAgentText(ua string) *string {
	if ua == "" {
		return nil
	}
	ua = strings.ReplaceAll(strings.ToValidUTF8(ua, "\uFFFD"), "\x00", "")
	for len(ua) > 512 {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	return &ua
}
func ipAddress(ip string) *string {
	if ip == "" {
		return nil
	}
	if len(ip) > 64 {
		ip = ip[:64]
	}
	return &ip
}

// deref is *t, or the zero time when t is nil.
func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// Account returns the account with id, or ErrNotFound.
func (s *Service) Account(ctx context.Context, id uuid.UUID) (*models.Account, error) {
	acc, err := s.Accounts.ByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNotFound
	}
	return acc, err
}

// clientOf converts a stored client name.
func clientOf(s string) action.Client {
	if s == string(action.App) {
		return action.App
	}
	return action.Web
}
