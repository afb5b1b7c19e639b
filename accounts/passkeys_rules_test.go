package accounts_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// device is a software authenticator holding one RSA credential, on the
// relying party of withPasskeys unless rp is changed.
type device struct {
	rp   virtualwebauthn.RelyingParty
	auth virtualwebauthn.Authenticator
	cred virtualwebauthn.Credential
}

// newDevice makes a device with opts (user verified and present unless
// they say otherwise).
func newDevice(opts virtualwebauthn.AuthenticatorOptions) *device {
	return &device{
		rp:   virtualwebauthn.RelyingParty{ID: "example.test", Name: "actionkit", Origin: "https://app.example.test"},
		auth: virtualwebauthn.NewAuthenticatorWithOptions(opts),
		cred: virtualwebauthn.NewCredential(virtualwebauthn.KeyTypeRSA),
	}
}

// create answers creation options with the JSON of an attestation.
func (d *device) create(t *testing.T, opts *accounts.WebAuthnOptions) []byte {
	t.Helper()
	o, err := virtualwebauthn.ParseAttestationOptions(string(opts.Options))
	if err != nil {
		t.Fatalf("creation options %s: %v", opts.Options, err)
	}
	d.auth.Options.UserHandle = []byte(o.UserID)
	return []byte(virtualwebauthn.CreateAttestationResponse(d.rp, d.auth, d.cred, *o))
}

// get answers request options with the JSON of an assertion.
func (d *device) get(t *testing.T, opts *accounts.WebAuthnOptions) []byte {
	t.Helper()
	o, err := virtualwebauthn.ParseAssertionOptions(string(opts.Options))
	if err != nil {
		t.Fatalf("request options %s: %v", opts.Options, err)
	}
	return []byte(virtualwebauthn.CreateAssertionResponse(d.rp, d.auth, d.cred, *o))
}

// register adds d as a passkey of acc named name, from its session.
func (d *device) register(t *testing.T, users *accountstest.Service, acc *models.Account, session uuid.UUID, name string) *models.Passkey {
	t.Helper()
	opts, err := users.PasskeyFlows.PasskeyRegisterOptions(t.Context(), acc.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	p, err := users.PasskeyFlows.RegisterPasskey(t.Context(), acc.ID, session, opts.ChallengeID.String(), d.create(t, opts), name, accountstest.Origin(action.Web))
	if err != nil {
		t.Fatalf("register passkey %s: %v", name, err)
	}
	return p
}

// login signs in with d alone, from o.
func (d *device) login(t *testing.T, users *accountstest.Service, o accounts.Origin) error {
	t.Helper()
	opts, err := users.PasskeyFlows.PasskeyLoginOptions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = users.PasskeyFlows.PasskeyLogin(t.Context(), opts.ChallengeID.String(), d.get(t, opts), o)
	return err
}

// passkeyRow reads the stored passkey id of acc.
func passkeyRow(t *testing.T, users *accountstest.Service, acc *models.Account, id uuid.UUID) models.Passkey {
	t.Helper()
	keys, err := users.PasskeyFlows.ListPasskeys(t.Context(), acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range keys {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("passkey %s is gone", id)
	return models.Passkey{}
}

// TestPasskeyCounters: a synced passkey keeps a zero counter; a counter
// that goes back on a backup-eligible passkey is accepted with a
// passkey_warning and never lowers the stored one; on a device-bound
// passkey it is refused, at a passkey login, a second step and a
// re-authentication alike, changing nothing but the warning. The backup
// state is refreshed on every use.
func TestPasskeyCounters(t *testing.T) {
	env := newEnv(t)
	users := withPasskeys(t, env)
	acc, iss := users.LoggedIn(t, action.Web)
	session := iss.Session.SessionID
	attempt := 0
	// Each attempt from an address of its own, which the slow-down of its
	// own failures does not stop.
	from := func() accounts.Origin {
		attempt++
		o := accountstest.Origin(action.Web)
		o.IP = fmt.Sprintf("198.51.100.%d", attempt)
		return o
	}
	warnings := func(accepted bool) int {
		n := 0
		for _, ev := range users.EventsOf(t, acc.ID) {
			if ev.Type == models.EventPasskeyWarning && accountstest.EventData(t, ev)["accepted"] == accepted {
				n++
			}
		}
		return n
	}

	synced := newDevice(virtualwebauthn.AuthenticatorOptions{BackupEligible: true})
	sp := synced.register(t, users, acc, session, "Synced")
	for range 2 {
		if err := synced.login(t, users, from()); err != nil {
			t.Fatalf("a synced passkey login: %v", err)
		}
	}
	if row := passkeyRow(t, users, acc, sp.ID); row.SignCount != 0 || row.BackupState || warnings(true) != 0 {
		t.Errorf("a synced passkey with no counter: %+v, %d warnings", row, warnings(true))
	}
	synced.auth.Options.BackupState = true
	synced.cred.Counter = 5
	if err := synced.login(t, users, from()); err != nil {
		t.Fatal(err)
	}
	synced.cred.Counter = 3
	if err := synced.login(t, users, from()); err != nil {
		t.Errorf("a synced passkey whose counter went back: %v, want accepted", err)
	}
	if row := passkeyRow(t, users, acc, sp.ID); row.SignCount != 5 || !row.BackupState || warnings(true) != 1 {
		t.Errorf("a synced passkey's counter went back: %+v, %d warnings; want 5 kept, backed up, one warning", row, warnings(true))
	}

	bound := newDevice(virtualwebauthn.AuthenticatorOptions{})
	bound.cred.Counter = 1
	bp := bound.register(t, users, acc, users.Live(t, acc.ID)[0].SessionID, "Key")
	bound.cred.Counter = 10
	if err := bound.login(t, users, from()); err != nil {
		t.Fatal(err)
	}
	sessions := len(users.Live(t, acc.ID))
	for _, n := range []uint32{10, 4, 0} {
		bound.cred.Counter = n
		if err := bound.login(t, users, from()); !errors.Is(err, accounts.ErrInvalidPasskeyCredentials) {
			t.Errorf("counter %d after 10: %v, want ErrInvalidPasskeyCredentials", n, err)
		}
	}
	if row := passkeyRow(t, users, acc, bp.ID); row.SignCount != 10 || len(users.Live(t, acc.ID)) != sessions || warnings(false) != 3 {
		t.Errorf("a device-bound passkey's counter went back: %+v, %d sessions (want %d), %d refused warnings",
			row, len(users.Live(t, acc.ID)), sessions, warnings(false))
	}
	bound.cred.Counter = 11
	if err := bound.login(t, users, from()); err != nil {
		t.Fatal(err)
	}
	// The same rule holds at a re-authentication and a second step.
	bound.cred.Counter = 11
	live := users.Live(t, acc.ID)[0].SessionID
	opts, err := users.SecondFactors.ReauthOptions(t.Context(), acc.ID, live)
	if err != nil {
		t.Fatal(err)
	}
	f := &accounts.SecondFactor{Method: accounts.FactorWebAuthn, ChallengeID: opts.ChallengeID.String(), Credential: bound.get(t, opts)}
	if _, err := users.SecondFactors.Reauthenticate(t.Context(), acc.ID, live, "", f, from()); !errors.Is(err, accounts.ErrInvalidWebAuthnResponse) {
		t.Errorf("a re-authentication with the counter not moved on: %v, want ErrInvalidWebAuthnResponse", err)
	}
	o := from()
	token := users.FirstStep(t, acc, o)
	if opts, err = users.SecondFactors.SecondFactorOptions(t.Context(), token); err != nil {
		t.Fatal(err)
	}
	f = &accounts.SecondFactor{Method: accounts.FactorWebAuthn, ChallengeID: opts.ChallengeID.String(), Credential: bound.get(t, opts)}
	if _, err := users.SecondFactors.Verify(t.Context(), token, *f, o); !errors.Is(err, accounts.ErrInvalidWebAuthnResponse) {
		t.Errorf("a second step with the counter not moved on: %v, want ErrInvalidWebAuthnResponse", err)
	}
	if row := passkeyRow(t, users, acc, bp.ID); row.SignCount != 11 || warnings(false) != 5 {
		t.Errorf("after refused second factors: %+v, %d refused warnings, want 11 and 5", row, warnings(false))
	}
}

// TestPasskeyRegistrationRefusals: registering an answer without user
// verification or from another origin is ErrInvalidWebAuthnResponse and
// spends the ceremony; answering another session's ceremony or an
// unknown one is ErrInvalidWebAuthnChallenge and spends nothing; a
// credential id already registered (by anyone) is refused; none of them
// adds a passkey.
func TestPasskeyRegistrationRefusals(t *testing.T) {
	env := newEnv(t)
	users := withPasskeys(t, env)
	pk, o := users.PasskeyFlows, accountstest.Origin(action.Web)
	acc, iss := users.LoggedIn(t, action.Web)
	session := iss.Session.SessionID
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	start := func(acc *models.Account, session uuid.UUID) *accounts.WebAuthnOptions {
		t.Helper()
		opts, err := pk.PasskeyRegisterOptions(t.Context(), acc.ID, session)
		if err != nil {
			t.Fatal(err)
		}
		return opts
	}
	finish := func(acc *models.Account, session uuid.UUID, id string, cred []byte) error {
		_, err := pk.RegisterPasskey(t.Context(), acc.ID, session, id, cred, "", o)
		return err
	}
	otherOrigin := newDevice(virtualwebauthn.AuthenticatorOptions{})
	otherOrigin.rp.Origin = "https://evil.test"
	for name, dev := range map[string]*device{
		"no user verification": newDevice(virtualwebauthn.AuthenticatorOptions{UserNotVerified: true}),
		"another origin":       otherOrigin,
	} {
		opts := start(acc, session)
		if err := finish(acc, session, opts.ChallengeID.String(), dev.create(t, opts)); !errors.Is(err, accounts.ErrInvalidWebAuthnResponse) {
			t.Errorf("%s: %v, want ErrInvalidWebAuthnResponse", name, err)
		}
		if err := finish(acc, session, opts.ChallengeID.String(), d.create(t, opts)); !errors.Is(err, accounts.ErrInvalidWebAuthnResponse) {
			t.Errorf("%s: the spent ceremony: %v, want ErrInvalidWebAuthnResponse", name, err)
		}
	}
	if keys, err := pk.ListPasskeys(t.Context(), acc.ID); err != nil || len(keys) != 0 {
		t.Fatalf("%d passkeys after refusals (%v), want none", len(keys), err)
	}
	other, its := users.LoggedIn(t, action.Web)
	opts := start(other, its.Session.SessionID)
	if err := finish(acc, session, opts.ChallengeID.String(), d.create(t, opts)); !errors.Is(err, accounts.ErrInvalidWebAuthnChallenge) {
		t.Errorf("another owner's ceremony: %v, want ErrInvalidWebAuthnChallenge", err)
	}
	if err := finish(other, its.Session.SessionID, uuid.NewString(), d.create(t, opts)); !errors.Is(err, accounts.ErrInvalidWebAuthnChallenge) {
		t.Errorf("an unknown ceremony: %v, want ErrInvalidWebAuthnChallenge", err)
	}
	if err := finish(other, its.Session.SessionID, opts.ChallengeID.String(), d.create(t, opts)); err != nil {
		t.Fatalf("the ceremony the refusals did not spend: %v", err)
	}
	// The same credential id, for the first owner.
	opts = start(acc, session)
	if err := finish(acc, session, opts.ChallengeID.String(), d.create(t, opts)); !errors.Is(err, accounts.ErrInvalidWebAuthnResponse) {
		t.Errorf("a credential id registered already: %v, want ErrInvalidWebAuthnResponse", err)
	}
	var n int
	if err := env.DB.GetContext(t.Context(), &n, `SELECT count(*) FROM webauthn_credentials`); err != nil || n != 1 {
		t.Errorf("%d credentials (%v), want 1", n, err)
	}
}
