package accounts

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/models"
)

// Passkeys are WebAuthn credentials, verified by github.com/go-webauthn/
// webauthn. The library checks a ceremony's answer against the server's
// half of it (its SessionData); the engine keeps that half in
// webauthn_challenges, bound to what the ceremony is for, and spends it
// with the first answer presented, whatever the outcome: an answer can be
// verified once. The challenge's lifetime is enforced here with the
// service's clock (the library's own check would use the system's).

// CeremonyTTL is how long the answer of a WebAuthn ceremony may take.
const CeremonyTTL = 5 * time.Minute

// WebAuthnSettings describe the relying party passkeys are bound to.
type WebAuthnSettings struct {
	// RPID is the relying party id: the domain the passkeys belong to (a
	// registrable suffix of every web origin's host, never an address).
	RPID string
	// RPName is the name authenticators show beside it.
	RPName string
	// Origins are the exact web origins a ceremony may come from
	// ("https://app.example.com").
	Origins []string
	// AppOrigins are the origins of native apps, compared as strings
	// ("android:apk-key-hash:...").
	AppOrigins []string
}

// NewRelyingParty returns the WebAuthn engine of s: registration asks for
// a discoverable credential with user verification and no attestation;
// each ceremony's answer is awaited for CeremonyTTL.
func NewRelyingParty(s WebAuthnSettings) (*webauthn.WebAuthn, error) {
	rk := true
	timeout := webauthn.TimeoutConfig{Timeout: CeremonyTTL, TimeoutUVD: CeremonyTTL}
	return webauthn.New(&webauthn.Config{
		RPID:                  s.RPID,
		RPDisplayName:         s.RPName,
		RPOrigins:             s.Origins,
		RPOpaqueOrigins:       s.AppOrigins,
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: &rk, ResidentKey: protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationRequired,
		},
		Timeouts: webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
}

// WebAuthnOptions are what a client passes to the browser to start a
// ceremony: Options is the bare PublicKeyCredentialCreationOptions or
// RequestOptions as JSON (binary members in base64url), ChallengeID names
// the ceremony when its answer comes back.
type WebAuthnOptions struct {
	ChallengeID uuid.UUID
	Options     json.RawMessage
}

// The failures of passkeys.
var (
	// ErrPasskeysUnavailable: no relying party is configured.
	ErrPasskeysUnavailable = errors.New("accounts: passkeys unavailable")
	// ErrMalformedCredential: a credential argument that is not the JSON
	// of a credential (a member of the wrong type, binary data that is not
	// base64url); nothing was looked at or spent.
	ErrMalformedCredential = errors.New("accounts: malformed webauthn credential")
	// ErrInvalidWebAuthnChallenge: a challenge id that names no ceremony
	// issued for this registration or login.
	ErrInvalidWebAuthnChallenge = errors.New("accounts: unknown webauthn challenge")
	// ErrInvalidPasskeyCredentials: a passkey login whose answer does not
	// verify, whatever the reason (unknown credential, bad signature, no
	// user verification, wrong origin or relying party, spent or expired
	// challenge, counter gone back on a device-bound passkey).
	ErrInvalidPasskeyCredentials = errors.New("accounts: invalid passkey credentials")
	// ErrPasskeyNotFound: a passkey id that names none of the owner's.
	ErrPasskeyNotFound = errors.New("accounts: passkey not found")
)

// webauthnOwner is an owner as the library sees it: its user handle,
// names and passkeys.
type webauthnOwner struct {
	handle        []byte
	name, display string
	passkeys      []models.Passkey
}

func (u *webauthnOwner) WebAuthnID() []byte          { return u.handle }
func (u *webauthnOwner) WebAuthnName() string        { return u.name }
func (u *webauthnOwner) WebAuthnDisplayName() string { return u.display }

func (u *webauthnOwner) WebAuthnCredentials() []webauthn.Credential {
	out := make([]webauthn.Credential, len(u.passkeys))
	for i := range u.passkeys {
		out[i] = credentialOf(&u.passkeys[i])
	}
	return out
}

// credentialOf is a stored passkey as the library's credential record;
// its backup flags must be the stored ones, or the library refuses every
// login ("Backup Eligible flag inconsistency").
func credentialOf(p *models.Passkey) webauthn.Credential {
	flags := protocol.FlagUserPresent
	if p.UserVerified {
		flags |= protocol.FlagUserVerified
	}
	if p.BackupEligible {
		flags |= protocol.FlagBackupEligible
	}
	if p.BackupState {
		flags |= protocol.FlagBackupState
	}
	transports := make([]protocol.AuthenticatorTransport, len(p.Transports))
	for i, t := range p.Transports {
		transports[i] = protocol.AuthenticatorTransport(t)
	}
	return webauthn.Credential{
		ID: p.CredentialID, PublicKey: p.PublicKey, Transport: transports,
		Flags:         webauthn.NewCredentialFlags(flags),
		Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID[:], SignCount: uint32(p.SignCount)},
	}
}

// webauthnOwner returns the library's view of the owner id, its user handle made
// now if it has none yet.
func (pk *Passkeys) webauthnOwner(ctx context.Context, id uuid.UUID) (*webauthnOwner, error) {
	acc, err := pk.Engine.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	handle, err := pk.Engine.Passkeys.UserHandle(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), id, fresh, pk.Engine.Now())
	if err != nil {
		return nil, err
	}
	list, err := pk.Engine.Passkeys.List(ctx, pk.Engine.DB, string(pk.Engine.Kind.Type), id)
	if err != nil {
		return nil, err
	}
	display := strings.TrimSpace(acc.FirstName + " " + acc.LastName)
	if display == "" {
		display = acc.Email
	}
	return &webauthnOwner{handle: handle, name: acc.Email, display: display, passkeys: list}, nil
}

// beginCeremony stores the server's half of a ceremony bound to b and
// returns what the client needs, options being the library's options
// object.
func (pk *Passkeys) beginCeremony(ctx context.Context, b models.Binding, options any, session *webauthn.SessionData) (*WebAuthnOptions, error) {
	opts, err := json.Marshal(options)
	if err != nil {
		return nil, fmt.Errorf("webauthn options: %w", err)
	}
	data, err := json.Marshal(session)
	if err != nil {
		return nil, fmt.Errorf("webauthn session: %w", err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := pk.Engine.Now()
	c := &models.Ceremony{ID: id, OwnerType: string(pk.Engine.Kind.Type), Binding: b, SessionData: data,
		ExpiresAt: now.Add(CeremonyTTL), CreatedAt: now}
	if err := pk.Ceremonies.Insert(ctx, pk.Engine.DB, c); err != nil {
		return nil, err
	}
	return &WebAuthnOptions{ChallengeID: id, Options: opts}, nil
}

// spendCeremony spends the ceremony named by raw (a challenge id) if it is
// live and was issued for b, and returns the library's session data. The
// spending is committed at once: whatever the answer's fate, it cannot be
// presented again. Each flow names its errors for the two ways a ceremony
// is not live: one never issued for b is unknown, one issued but spent or
// expired is dead.
func (pk *Passkeys) spendCeremony(ctx context.Context, raw string, b models.Binding, unknown, dead error) (*webauthn.SessionData, error) {
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return nil, unknown
	}
	typ := string(pk.Engine.Kind.Type)
	data, err := pk.Ceremonies.Spend(ctx, pk.Engine.DB, id, typ, b, pk.Engine.Now())
	if errors.Is(err, models.ErrNotFound) {
		known, kerr := pk.Ceremonies.Known(ctx, pk.Engine.DB, id, typ, b)
		switch {
		case kerr != nil:
			return nil, kerr
		case known:
			return nil, dead
		}
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
	var session webauthn.SessionData
	if err := json.Unmarshal(data, &session); err != nil {
		return nil, fmt.Errorf("webauthn session of challenge %s: %w", id, err)
	}
	return &session, nil
}

// decodeAssertion reads the JSON of an assertion (PublicKeyCredential's
// toJSON() after navigator.credentials.get()): a member of the wrong type
// or binary data that is not base64url is ErrMalformedCredential. What
// the members mean is checked later, with the challenge spent.
func decodeAssertion(raw json.RawMessage) (*protocol.CredentialAssertionResponse, error) {
	var car protocol.CredentialAssertionResponse
	if err := decodeCredential(raw, &car, &car.ID); err != nil {
		return nil, err
	}
	return &car, nil
}

// decodeCreation is decodeAssertion for the answer of
// navigator.credentials.create().
func decodeCreation(raw json.RawMessage) (*protocol.CredentialCreationResponse, error) {
	var ccr protocol.CredentialCreationResponse
	if err := decodeCredential(raw, &ccr, &ccr.ID); err != nil {
		return nil, err
	}
	return &ccr, nil
}

// decodeCredential reads raw, which must be a JSON object, into v, whose
// credential id (at id, read once v is filled) must be base64url; anything
// else is ErrMalformedCredential.
func decodeCredential(raw json.RawMessage, v any, id *string) error {
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, v) != nil {
		return ErrMalformedCredential
	}
	if _, err := base64.RawURLEncoding.DecodeString(*id); err != nil {
		return ErrMalformedCredential
	}
	return nil
}

// counterVerdict applies the rule of signature counters to a stored
// counter and the one an assertion carries: the counter must advance,
// unless both are zero (an authenticator without a counter, as synced
// passkeys are). It returns the counter to store, never below the stored
// one, and whether the assertion's went back (or stood still): a sign of
// a cloned authenticator, or of a synced passkey used on several devices.
func counterVerdict(stored int64, got uint32) (next int64, regressed bool) {
	switch {
	case stored == 0 && got == 0:
		return 0, false
	case int64(got) > stored:
		return int64(got), false
	}
	return stored, true
}

// webauthnReason says why the library refused an answer, for the log; the
// client learns only the one code of its action.
func webauthnReason(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return strings.TrimSpace(pe.Type + ": " + pe.Details + " " + pe.DevInfo)
	}
	return err.Error()
}
