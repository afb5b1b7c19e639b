package v1

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// The caller's passkeys (users and admins): /v1/users/passkeys/... and
// /v1/admins/passkeys/.... Registering and removing one are sensitive.

// passkeySpec names an action on the caller's passkeys: verb
// "PasskeyRename" with path "rename" is V1PasskeyRename at
// /v1/users/passkeys/rename.
func passkeySpec(kind accounts.Kind, verb, path, summary string, errs ...errorcodes.Code) action.Spec {
	p := "passkeys"
	if path != "" {
		p += "/" + path
	}
	s := specFor(kind, verb, p)
	s.Summary, s.Auth, s.Errors = summary, action.Owner(kind.Type), errs
	return s
}

// PasskeyView is a passkey on the wire. BackedUp is its backup state (a
// synced passkey); Transports are how the browser may reach its
// authenticator.
type PasskeyView struct {
	ID         uuid.UUID  `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	BackedUp   bool       `json:"backedUp"`
	Transports []string   `json:"transports"`
}

// ViewPasskey builds the wire object of p.
func ViewPasskey(p *models.Passkey) *PasskeyView {
	return &PasskeyView{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt, LastUsedAt: p.LastUsedAt, BackedUp: p.BackupState,
		Transports: append([]string{}, p.Transports...)}
}

// PasskeysResult lists passkeys, newest first.
type PasskeysResult struct {
	Passkeys []*PasskeyView `json:"passkeys"`
}

func passkeysResult(list []models.Passkey) *PasskeysResult {
	out := &PasskeysResult{Passkeys: make([]*PasskeyView, len(list))}
	for i := range list {
		out.Passkeys[i] = ViewPasskey(&list[i])
	}
	return out
}

// PasskeyResult is one passkey.
type PasskeyResult struct {
	Passkey *PasskeyView `json:"passkey"`
}

// WebAuthnOptionsResult starts a WebAuthn ceremony: options is the bare
// PublicKeyCredentialCreationOptions or RequestOptions object, binary
// members in base64url (PublicKeyCredential.parseCreationOptionsFromJSON
// and parseRequestOptionsFromJSON read it); challengeId names the ceremony
// when its answer comes back.
type WebAuthnOptionsResult struct {
	ChallengeID uuid.UUID       `json:"challengeId"`
	Options     json.RawMessage `json:"options"`
}

func optionsResult(o *accounts.WebAuthnOptions) *WebAuthnOptionsResult {
	return &WebAuthnOptionsResult{ChallengeID: o.ChallengeID, Options: o.Options}
}

// Passkeys lists the caller's passkeys.
type Passkeys struct {
	Passkeys *accounts.Passkeys
}

// Spec declares V1Passkeys (V1AdminPasskeys for admins).
func (a *Passkeys) Spec() action.Spec {
	return passkeySpec(a.Passkeys.Engine.Kind, "Passkeys", "", "List your passkeys")
}

// Run lists them.
func (a *Passkeys) Run(ctx context.Context, req *action.Request, _ *struct{}) (*PasskeysResult, error) {
	list, err := a.Passkeys.ListPasskeys(ctx, req.Caller.ID)
	if err != nil {
		return nil, err
	}
	return passkeysResult(list), nil
}

// PasskeyRegisterOptions starts adding a passkey.
type PasskeyRegisterOptions struct {
	Passkeys *accounts.Passkeys
}

// Spec declares V1PasskeyRegisterOptions.
func (a *PasskeyRegisterOptions) Spec() action.Spec {
	s := passkeySpec(a.Passkeys.Engine.Kind, "PasskeyRegisterOptions", "registeroptions",
		"Start adding a passkey: the options of navigator.credentials.create()", errorcodes.ServiceUnavailable)
	s.Reauth = action.ReauthFactor
	return s
}

// Run makes the options.
func (a *PasskeyRegisterOptions) Run(ctx context.Context, req *action.Request, _ *struct{}) (*WebAuthnOptionsResult, error) {
	o, err := a.Passkeys.PasskeyRegisterOptions(ctx, req.Caller.ID, req.Caller.SessionID)
	if err != nil {
		return nil, AccountError(a.Passkeys.Engine.Kind, err)
	}
	return optionsResult(o), nil
}

// PasskeyRegister finishes adding a passkey with the created credential.
type PasskeyRegister struct {
	Passkeys *accounts.Passkeys
}

// PasskeyRegisterArgs are the arguments of PasskeyRegister: the ceremony,
// the credential's JSON (PublicKeyCredential.toJSON()) and an optional
// name.
type PasskeyRegisterArgs struct {
	ChallengeID string          `arg:"challengeId" validate:"required,max=64"`
	Credential  json.RawMessage `arg:"credential,secret" validate:"required"`
	Name        string          `arg:"name" mod:"trim" validate:"max=64,passkeyName"`
}

// Spec declares V1PasskeyRegister.
func (a *PasskeyRegister) Spec() action.Spec {
	k := a.Passkeys.Engine.Kind
	s := passkeySpec(k, "PasskeyRegister", "register", "Finish adding a passkey",
		k.Codes.Passkey.InvalidChallenge, k.Codes.SecondFactor.InvalidWebAuthnResponse, errorcodes.ServiceUnavailable)
	s.Reauth = action.ReauthFactor
	s.Status = http.StatusCreated
	return s
}

// Run registers the passkey.
func (a *PasskeyRegister) Run(ctx context.Context, req *action.Request, in *PasskeyRegisterArgs) (*PasskeyResult, error) {
	p, err := a.Passkeys.RegisterPasskey(ctx, req.Caller.ID, req.Caller.SessionID, in.ChallengeID, in.Credential, in.Name, Origin(req))
	if err != nil {
		return nil, AccountError(a.Passkeys.Engine.Kind, err)
	}
	return &PasskeyResult{Passkey: ViewPasskey(p)}, nil
}

// PasskeyRename names one of the caller's passkeys.
type PasskeyRename struct {
	Passkeys *accounts.Passkeys
}

// PasskeyRenameArgs are the arguments of PasskeyRename.
type PasskeyRenameArgs struct {
	PasskeyID uuid.UUID `arg:"passkeyId" validate:"required"`
	Name      string    `arg:"name" mod:"trim" validate:"required,max=64,passkeyName"`
}

// Spec declares V1PasskeyRename.
func (a *PasskeyRename) Spec() action.Spec {
	return passkeySpec(a.Passkeys.Engine.Kind, "PasskeyRename", "rename", "Rename a passkey", a.Passkeys.Engine.Kind.Codes.Passkey.NotFound)
}

// Run renames it.
func (a *PasskeyRename) Run(ctx context.Context, req *action.Request, in *PasskeyRenameArgs) (*PasskeyResult, error) {
	p, err := a.Passkeys.RenamePasskey(ctx, req.Caller.ID, in.PasskeyID, in.Name)
	if err != nil {
		return nil, AccountError(a.Passkeys.Engine.Kind, err)
	}
	return &PasskeyResult{Passkey: ViewPasskey(p)}, nil
}

// PasskeyRemove removes one of the caller's passkeys, unless it is the
// last way to sign in to the account.
type PasskeyRemove struct {
	Passkeys *accounts.Passkeys
}

// PasskeyIDArgs name one of the caller's passkeys.
type PasskeyIDArgs struct {
	PasskeyID uuid.UUID `arg:"passkeyId" validate:"required"`
}

// Spec declares V1PasskeyRemove.
func (a *PasskeyRemove) Spec() action.Spec {
	c := a.Passkeys.Engine.Kind.Codes.Passkey
	s := passkeySpec(a.Passkeys.Engine.Kind, "PasskeyRemove", "remove", "Remove a passkey", c.NotFound, c.LastSignInMethod)
	s.Reauth = action.ReauthFactor
	return s
}

// Run removes it.
func (a *PasskeyRemove) Run(ctx context.Context, req *action.Request, in *PasskeyIDArgs) (*Empty, error) {
	if err := a.Passkeys.RemovePasskey(ctx, req.Caller.ID, in.PasskeyID, Origin(req)); err != nil {
		return nil, AccountError(a.Passkeys.Engine.Kind, err)
	}
	return &Empty{}, nil
}
