package v1

import (
	"context"
	"errors"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// UpdateUser changes the caller's names, time zone or language (users
// only): every argument is optional, and one that is absent is left as
// it is.
type UpdateUser struct {
	Self *accounts.SelfService
}

// UpdateUserArgs are the arguments of UpdateUser, with register's rules.
type UpdateUserArgs struct {
	FirstName *string `arg:"firstName" mod:"trim" validate:"max=64"`
	LastName  *string `arg:"lastName" mod:"trim" validate:"max=64"`
	Timezone  *string `arg:"timezone" mod:"trim" validate:"max=64"`
	Locale    *string `arg:"locale" mod:"trim,locale" validate:"locale"`
}

// Spec declares V1UserUpdate.
func (a *UpdateUser) Spec() action.Spec {
	kind := a.Self.Engine.Kind
	s := specFor(kind, "Update", "update")
	s.Summary = "Change your name, time zone or language"
	s.Auth = action.Owner(kind.Type)
	s.Errors = []errorcodes.Code{accounts.UserInvalidTimezone}
	return s
}

// Run applies the change and answers the account.
func (a *UpdateUser) Run(ctx context.Context, req *action.Request, in *UpdateUserArgs) (*AccountResult, error) {
	if in.Timezone != nil && !validTimezone(*in.Timezone) {
		return nil, accounts.UserInvalidTimezone.New()
	}
	acc, err := a.Self.UpdateProfile(ctx, req.Caller.ID, req.Caller.SessionID, accounts.ProfileChange{
		FirstName: in.FirstName, LastName: in.LastName, Timezone: in.Timezone, Locale: in.Locale,
	}, Origin(req))
	if err != nil {
		return nil, AccountError(a.Self.Engine.Kind, err)
	}
	return &AccountResult{User: ViewAccount(acc)}, nil
}

// RequestEmailChange asks to move the caller's account to a new address:
// the new address gets a link to confirm it, the current one a notice.
// The answer is the same whether or not the new address has an account.
type RequestEmailChange struct {
	Credentials *accounts.Credentials
}

// RequestEmailChangeArgs are the arguments of RequestEmailChange; the
// address is normalised as at register.
type RequestEmailChangeArgs struct {
	NewEmail string `arg:"newEmail" mod:"trim,lower" validate:"required,email,max=254"`
}

// Spec declares V1UserRequestEmailChange.
func (a *RequestEmailChange) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "RequestEmailChange", "requestemailchange")
	s.Summary = "Ask to change your e-mail address: the new one gets a link to confirm it"
	s.Auth = action.Owner(a.Credentials.Engine.Kind.Type)
	s.Errors = []errorcodes.Code{errorcodes.ServiceUnavailable}
	s.RateClass = action.RateMail
	s.Reauth = action.ReauthRecent
	return s
}

// Run starts the change.
func (a *RequestEmailChange) Run(ctx context.Context, req *action.Request, in *RequestEmailChangeArgs) (*Empty, error) {
	err := a.Credentials.RequestEmailChange(ctx, req.Caller.ID, in.NewEmail)
	if errors.Is(err, accounts.ErrSameEmail) {
		return nil, errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"newEmail": {Code: "must_differ_email", Message: "must differ from the current e-mail address"},
		})
	}
	if err != nil {
		return nil, mailError(err)
	}
	return &Empty{}, nil
}

// ConfirmEmailChange completes an e-mail change with the token mailed to
// the new address; every session of the account ends.
type ConfirmEmailChange struct {
	Credentials *accounts.Credentials
}

// TokenArgs are the arguments of an action that takes a one-time token.
type TokenArgs struct {
	Token string `arg:"token,secret,allownul" validate:"required,max=1024"`
}

// Spec declares V1UserConfirmEmailChange.
func (a *ConfirmEmailChange) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "ConfirmEmailChange", "confirmemailchange")
	s.Summary = "Confirm a new e-mail address with the token mailed to it"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{accounts.UserInvalidEmailChangeToken, accounts.UserAlreadyExists}
	s.RateClass = action.RateToken
	return s
}

// Run completes the change.
func (a *ConfirmEmailChange) Run(ctx context.Context, req *action.Request, in *TokenArgs) (*Empty, error) {
	err := a.Credentials.ConfirmEmailChange(ctx, in.Token, Origin(req))
	if errors.Is(err, accounts.ErrInvalidToken) {
		return nil, accounts.UserInvalidEmailChangeToken.New()
	}
	if err != nil {
		return nil, AccountError(a.Credentials.Engine.Kind, err)
	}
	return &Empty{}, nil
}

// RevertEmailChange puts back the address an e-mail change replaced, with
// the token mailed to it; every session of the account ends.
type RevertEmailChange struct {
	Credentials *accounts.Credentials
}

// Spec declares V1UserRevertEmailChange.
func (a *RevertEmailChange) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "RevertEmailChange", "revertemailchange")
	s.Summary = "Put your previous e-mail address back with the token mailed to it after a change"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{accounts.UserInvalidEmailRevertToken, accounts.UserAlreadyExists}
	s.RateClass = action.RateToken
	return s
}

// Run reverts the change.
func (a *RevertEmailChange) Run(ctx context.Context, req *action.Request, in *TokenArgs) (*Empty, error) {
	err := a.Credentials.RevertEmailChange(ctx, in.Token, Origin(req))
	if errors.Is(err, accounts.ErrInvalidToken) {
		return nil, accounts.UserInvalidEmailRevertToken.New()
	}
	if err != nil {
		return nil, AccountError(a.Credentials.Engine.Kind, err)
	}
	return &Empty{}, nil
}

// DeleteUser deletes the caller's account (a soft delete, purged for good
// after the deletion grace): every session, access token and socket ends
// at once, and the refresh cookie is cleared.
type DeleteUser struct {
	Self    *accounts.SelfService
	Cookies Cookies
}

// Spec declares V1UserDelete.
func (a *DeleteUser) Spec() action.Spec {
	kind := a.Self.Engine.Kind
	s := specFor(kind, "Delete", "delete")
	s.Summary = "Delete your account"
	s.Auth = action.Owner(kind.Type)
	s.Reauth = action.ReauthRecent
	return s
}

// Run deletes the account.
func (a *DeleteUser) Run(ctx context.Context, req *action.Request, _ *struct{}) (*Empty, error) {
	kind := a.Self.Engine.Kind
	if err := a.Self.DeleteSelf(ctx, req.Caller.ID, req.Caller.SessionID, Origin(req)); err != nil {
		return nil, AccountError(kind, err)
	}
	a.Cookies.Clear(req, kind.Type)
	return &Empty{}, nil
}

// ExportUser answers everything the service holds about the caller, each
// part as the caller's own action shows it, and never a secret, hash or
// token.
type ExportUser struct {
	Accounts   *accounts.Service
	Activity   *accounts.Activity
	Factors    *accounts.SecondFactors
	Passkeys   *accounts.Passkeys
	Federation *accounts.Federation
}

// Export is the caller's data.
type Export struct {
	User           *AccountView   `json:"user"`
	Sessions       []SessionView  `json:"sessions"`
	SecurityEvents []EventView    `json:"securityEvents"`
	Identities     []IdentityView `json:"identities"`
	Passkeys       []*PasskeyView `json:"passkeys"`
	MFA            MFAStatusView  `json:"mfa"`
	OAuthApps      []OAuthAppView `json:"oauthApps"`
	Posts          []*PostView    `json:"posts"`
	ExportedAt     time.Time      `json:"exportedAt"`
}

// OAuthAppView is an OAuth client the user consented to, and what it was
// granted.
type OAuthAppView struct {
	ClientID  string    `json:"clientId"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Resources []string  `json:"resources"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ExportResult is the answer of ExportUser.
type ExportResult struct {
	Export Export `json:"export"`
}

// Spec declares V1UserExport.
func (a *ExportUser) Spec() action.Spec {
	s := specFor(a.Accounts.Kind, "Export", "export")
	s.Summary = "Download everything the service holds about you"
	s.Auth = action.Owner(a.Accounts.Kind.Type)
	s.Reauth = action.ReauthRecent
	return s
}

// Run gathers the export.
func (a *ExportUser) Run(ctx context.Context, req *action.Request, _ *struct{}) (*ExportResult, error) {
	owner, db := req.Caller.ID, a.Accounts.DB
	out := Export{ExportedAt: a.Accounts.Now()}
	acc, err := a.Accounts.Account(ctx, owner)
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	out.User = ViewAccount(acc)
	sessions, err := viewLiveSessions(ctx, a.Activity, owner, req.Caller.SessionID)
	if err != nil {
		return nil, err
	}
	out.Sessions = sessions.Sessions
	out.SecurityEvents = []EventView{}
	for cursor := ""; ; {
		list, next, err := a.Activity.SecurityEvents(ctx, owner, cursor, 100)
		if err != nil {
			return nil, err
		}
		out.SecurityEvents = append(out.SecurityEvents, ViewEvents(list)...)
		if next == "" {
			break
		}
		cursor = next
	}
	ids, err := a.Federation.ListIdentities(ctx, owner)
	if err != nil {
		return nil, federationError(err)
	}
	out.Identities = identitiesResult(ids).Identities
	keys, err := a.Passkeys.ListPasskeys(ctx, owner)
	if err != nil {
		return nil, err
	}
	out.Passkeys = passkeysResult(keys).Passkeys
	st, err := a.Factors.Status(ctx, owner)
	if err != nil {
		return nil, err
	}
	out.MFA = MFAStatusView{Enabled: st.Enabled, Methods: st.Methods, TOTPConfirmedAt: st.TOTPConfirmedAt,
		RecoveryCodesRemaining: st.RecoveryCodesRemaining, Passkeys: st.Passkeys}
	consents, err := models.Consents(ctx, db, owner)
	if err != nil {
		return nil, err
	}
	out.OAuthApps = make([]OAuthAppView, len(consents))
	for i, c := range consents {
		out.OAuthApps[i] = OAuthAppView{ClientID: c.ClientID, Name: c.ClientName, Scopes: append([]string{}, c.Scopes...),
			Resources: append([]string{}, c.Resources...), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	}
	posts, err := models.PostsOf(ctx, db, owner)
	if err != nil {
		return nil, err
	}
	out.Posts = make([]*PostView, len(posts))
	for i := range posts {
		out.Posts[i] = ViewPost(&posts[i])
	}
	return &ExportResult{Export: out}, nil
}
