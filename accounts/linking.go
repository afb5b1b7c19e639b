package accounts

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/federation"
	mailer "github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// outcome is what the linking policy decided for a verified identity.
type outcome struct {
	// user is who the identity signs in (or was attached to).
	user *models.Account
	// event is models.FlowLogin or FlowRegister (a user it created).
	event string
	// linked reports an identity attached to user by this flow, and
	// verify a created user whose address still needs verifying.
	linked, verify bool
	// refused is the owner a refusal concerns (uuid.Nil: none).
	refused uuid.UUID
	// blocked, when set, is why the user, created nonetheless, may not
	// log in yet (an address to verify first).
	blocked error
}

// decide applies the linking policy to the verified identity id of flow,
// in one transaction with the result code it stores, and returns the
// fragment of the landing. In order: a known identity signs its user in
// (or, in a link flow, must be the linking user's); a link flow attaches
// the identity to its user; an identity whose e-mail address is a user's
// is refused, unless the provider may link automatically and both sides
// verified the address; else a user is created when the provider allows
// signup.
func (f *Federation) decide(ctx context.Context, flow *models.Flow, id *federation.Identity, in CallbackIn) (string, error) {
	p, _ := f.Providers.Provider(flow.Provider)
	var (
		out    *outcome
		result string
	)
	err := models.Transact(ctx, f.Users.DB, func(tx *sqlx.Tx) error {
		var err error
		if out, err = f.policy(ctx, tx, flow, p, id, in); err != nil {
			return err
		}
		if flow.LinkUserID != nil || out.blocked != nil {
			return nil
		}
		result, err = f.storeResult(ctx, tx, flow, out)
		return err
	})
	var failure *flowFailure
	if errors.As(err, &failure) {
		if out != nil && out.refused != uuid.Nil {
			f.recordFailure(ctx, out.refused, p.ID, failure.reason, in.Origin)
		} else {
			f.linkFailed(ctx, flow, err, in.Origin)
		}
	}
	if err != nil {
		return "", err
	}
	f.afterDecision(ctx, p, out)
	if out.blocked != nil {
		return "", fail(out.blocked, refusalReason(out.blocked))
	}
	if flow.LinkUserID != nil {
		return "linked=" + p.ID, nil
	}
	return "oidc=" + result, nil
}

// afterDecision sends what a committed decision owes: the notice of a new
// link, the verification mail of a created user.
func (f *Federation) afterDecision(ctx context.Context, p federation.Provider, out *outcome) {
	s := f.Users
	if out.linked && out.event != models.FlowRegister {
		s.notices().sendAbout(ctx, out.user, mailer.IdentityLinked, s.notices().providerName(p.ID))
	}
	if out.verify && s.Mail.available() {
		if _, err := s.sendToken(ctx, out.user, models.PurposeEmailVerify, nil); err != nil {
			s.Log.Warn("verification mail not queued", "ownerId", out.user.ID.String(), "error", err.Error())
		}
	}
}

// policy decides, in tx, what the identity does (see decide). A refusal
// is a *flowFailure; out.refused names the user it concerns, if any.
func (f *Federation) policy(ctx context.Context, tx *sqlx.Tx, flow *models.Flow, p federation.Provider, id *federation.Identity, in CallbackIn) (*outcome, error) {
	s := f.Users
	known, err := s.Identities.BySubject(ctx, tx, p.ID, id.Subject)
	switch {
	case err == nil:
		return f.knownIdentity(ctx, tx, flow, known, id, in.Origin)
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	case flow.LinkUserID != nil:
		return f.attachToLinker(ctx, tx, flow, id, in.Origin)
	}
	email, ok := identityEmail(id.Email)
	if !ok {
		return nil, fail(ErrOIDCProvider, "no_usable_email")
	}
	acc, err := s.Accounts.ByEmail(ctx, tx, email)
	switch {
	case err == nil:
		return f.emailMatch(ctx, tx, p, acc, id, in.Origin)
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	case !p.AllowSignup:
		return nil, fail(ErrSignupDisabled, "signup_disabled")
	}
	return f.signUp(ctx, tx, p, email, id, in)
}

// knownIdentity signs the identity's user in, refused like a password
// login when the user is inactive, deleted or (when required) has not
// verified its address; in a link flow the identity must already be the
// linking user's. The identity records what the provider says now.
func (f *Federation) knownIdentity(ctx context.Context, tx *sqlx.Tx, flow *models.Flow, known *models.Identity, id *federation.Identity, o Origin) (*outcome, error) {
	s := f.Users
	now := s.Now()
	if flow.LinkUserID != nil && *flow.LinkUserID != known.UserID {
		return nil, fail(ErrIdentityLinked, "already_linked")
	}
	acc, err := s.Accounts.LockForUpdate(ctx, tx, known.UserID)
	if err != nil {
		return nil, err
	}
	if flow.LinkUserID == nil {
		if refused := refusal(acc, true, s.Mail); refused != nil {
			return &outcome{refused: acc.ID}, fail(refused, refusalReason(refused))
		}
		if err := s.Identities.LoggedIn(ctx, tx, known.ID, now); err != nil {
			return nil, err
		}
	}
	if err := s.Identities.Seen(ctx, tx, known.ID, optional(id.Email), id.EmailVerified, now); err != nil {
		return nil, err
	}
	return &outcome{user: acc, event: models.FlowLogin}, nil
}

// attachToLinker attaches a new identity to the user of a link flow,
// whose session must still be live.
func (f *Federation) attachToLinker(ctx context.Context, tx *sqlx.Tx, flow *models.Flow, id *federation.Identity, o Origin) (*outcome, error) {
	s := f.Users
	acc, err := s.lockActive(ctx, tx, *flow.LinkUserID)
	if errors.Is(err, ErrInactive) {
		return nil, fail(ErrInvalidOIDCState, "linking_user_inactive")
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.Sessions.LiveInChain(ctx, tx, acc.ID, *flow.LinkSessionID); errors.Is(err, models.ErrNotFound) {
		return nil, fail(ErrInvalidOIDCState, "linking_session_ended")
	} else if err != nil {
		return nil, err
	}
	if err := f.attach(ctx, tx, acc, id, flow.LinkSessionID, o, nil); err != nil {
		return nil, err
	}
	return &outcome{user: acc, event: models.FlowLogin, linked: true}, nil
}

// emailMatch handles a new identity whose e-mail address is acc's: it is
// attached and signs acc in only when the provider links automatically,
// is trusted, says the address is verified, and acc verified it too.
// Otherwise the owner must log in and link it: ErrOIDCAccountExists.
func (f *Federation) emailMatch(ctx context.Context, tx *sqlx.Tx, p federation.Provider, acc *models.Account, id *federation.Identity, o Origin) (*outcome, error) {
	s := f.Users
	if !(p.AutoLink && p.TrustEmail && id.EmailVerified && acc.EmailVerifiedAt != nil) {
		return &outcome{refused: acc.ID}, fail(ErrOIDCAccountExists, "account_exists")
	}
	locked, err := s.Accounts.LockForUpdate(ctx, tx, acc.ID)
	if err != nil {
		return nil, err
	}
	if refused := refusal(locked, true, s.Mail); refused != nil {
		return &outcome{refused: acc.ID}, fail(refused, refusalReason(refused))
	}
	if err := f.attach(ctx, tx, locked, id, nil, o, map[string]any{"automatic": true}); err != nil {
		return nil, err
	}
	return &outcome{user: locked, event: models.FlowLogin, linked: true}, nil
}

// signUp creates a user without a password for the identity. Its address
// counts as verified only when the provider is trusted and says so.
func (f *Federation) signUp(ctx context.Context, tx *sqlx.Tx, p federation.Provider, email string, id *federation.Identity, in CallbackIn) (*outcome, error) {
	s := f.Users
	uid, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	acc := &models.Account{ID: uid, Email: email, FirstName: clip(id.GivenName, 64), LastName: clip(id.FamilyName, 64),
		Timezone: "UTC", Locale: orDefault(in.Locale, "en"), IsActive: true, LoginCount: 1, LastLoginAt: &now,
		CreatedAt: now, UpdatedAt: now}
	verified := p.TrustEmail && id.EmailVerified
	if verified {
		acc.EmailVerifiedAt = &now
	}
	if err := s.Accounts.Create(ctx, tx, acc); errors.Is(err, models.ErrDuplicate) {
		return nil, fail(ErrOIDCAccountExists, "account_exists") // registered meanwhile
	} else if err != nil {
		return nil, err
	}
	if err := s.reserve(ctx, tx, acc.Email, uuid.Nil); errors.Is(err, ErrExists) {
		return nil, fail(ErrOIDCAccountExists, "account_exists") // kept for a revert, as if it had an account
	} else if err != nil {
		return nil, err
	}
	if err := f.insertIdentity(ctx, tx, acc.ID, id, true); err != nil {
		return nil, err
	}
	return &outcome{user: acc, event: models.FlowRegister, linked: true, verify: !verified, blocked: refusal(acc, true, s.Mail)}, nil
}

// attach adds the identity to acc with its identity_linked event (about
// session, when a session asked for it).
func (f *Federation) attach(ctx context.Context, tx *sqlx.Tx, acc *models.Account, id *federation.Identity, session *uuid.UUID, o Origin, extra map[string]any) error {
	if err := f.insertIdentity(ctx, tx, acc.ID, id, session == nil); err != nil {
		return err
	}
	data := map[string]any{"provider": id.Provider}
	for k, v := range extra {
		data[k] = v
	}
	sid := uuid.Nil
	if session != nil {
		sid = *session
	}
	return f.Users.record(ctx, tx, models.EventIdentityLinked, acc.ID, sid, o, data)
}

// insertIdentity stores a new identity of user; signingIn records it as
// used to sign in now.
func (f *Federation) insertIdentity(ctx context.Context, tx *sqlx.Tx, user uuid.UUID, id *federation.Identity, signingIn bool) error {
	s := f.Users
	iid, err := uuid.NewV7()
	if err != nil {
		return err
	}
	now := s.Now()
	row := &models.Identity{ID: iid, UserID: user, Provider: id.Provider, Subject: id.Subject,
		Email: optional(clip(id.Email, 254)), EmailVerified: id.EmailVerified, CreatedAt: now}
	if err := s.Identities.Insert(ctx, tx, row); errors.Is(err, models.ErrDuplicate) {
		return fail(ErrIdentityLinked, "already_linked") // attached meanwhile
	} else if err != nil {
		return err
	}
	if signingIn {
		return s.Identities.LoggedIn(ctx, tx, iid, now)
	}
	return nil
}

// storeResult stores the one-time result code of a sign-in and returns it.
func (f *Federation) storeResult(ctx context.Context, tx *sqlx.Tx, flow *models.Flow, out *outcome) (string, error) {
	raw, err := randomHex()
	if err != nil {
		return "", err
	}
	err = f.Flows.SetResult(ctx, tx, flow.ID, sha256Hex(raw), out.user.ID, out.event, f.Users.Now().Add(ResultTTL))
	return raw, err
}

// identityEmail is the identity's address as an account would store it
// (trimmed, lowercase), and whether it is one.
func identityEmail(raw string) (string, bool) {
	email := strings.ToLower(strings.TrimSpace(raw))
	if email == "" || len(email) > 254 {
		return "", false
	}
	addr, err := mail.ParseAddress(email)
	return email, err == nil && addr.Address == email
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FederationCode is the error code of a failure of the identity-provider
// flows (login refusals included), or "" for any other error.
func FederationCode(err error) errorcodes.Code {
	for _, m := range []struct {
		err  error
		code errorcodes.Code
	}{
		{ErrUnknownProvider, UserUnknownOIDCProvider}, {ErrInvalidOIDCState, UserInvalidOIDCState},
		{ErrOIDCProvider, UserOIDCProviderError}, {ErrIdentityLinked, UserIdentityAlreadyLinked},
		{ErrOIDCAccountExists, UserOIDCAccountExists}, {ErrSignupDisabled, UserSignupDisabled},
		{ErrInvalidOIDCCode, UserInvalidOIDCCode}, {ErrIdentityNotFound, UserIdentityNotFound},
		{ErrLastSignInMethod, UserLastSignInMethod}, {ErrInactive, UserAccountInactive},
		{ErrDeleted, UserAccountDeleted}, {ErrNotVerified, UserEmailNotVerified},
	} {
		if errors.Is(err, m.err) {
			return m.code
		}
	}
	return ""
}

// errorName is the code a callback's fragment reports for err.
func errorName(err error) string {
	if c := FederationCode(err); c != "" {
		return c.ID()
	}
	return UserOIDCProviderError.ID()
}
