package accounts_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/descope/virtualwebauthn"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
)

// TestPasskeyNotAddedToAnEndedSession: a registration whose session ended
// after the request's session check (a password reset that ended every
// session and removed what others added, say) adds no passkey: the engine
// checks the session again under the owner's lock, as a TOTP
// confirmation does, and answers ErrSessionEnded.
func TestPasskeyNotAddedToAnEndedSession(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	rp, err := accounts.NewRelyingParty(accounts.WebAuthnSettings{RPID: "example.test", RPName: "actionkit",
		Origins: []string{"https://app.example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	users.PasskeyFlows.WebAuthn = rp
	acc, caller := users.LoggedIn(t, action.Web)
	session := caller.Session.SessionID
	opts, err := users.PasskeyFlows.PasskeyRegisterOptions(t.Context(), acc.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	credential := softwareAttestation(t, opts.Options)
	if err := users.LogoutAll(t.Context(), acc.ID, session, accountstest.Origin(action.Web), nil); err != nil {
		t.Fatal(err)
	}
	_, err = users.PasskeyFlows.RegisterPasskey(t.Context(), acc.ID, session, opts.ChallengeID.String(), credential, "late",
		accountstest.Origin(action.Web))
	if !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("registering in an ended session: %v, want ErrSessionEnded", err)
	}
	if keys, err := users.PasskeyFlows.ListPasskeys(t.Context(), acc.ID); err != nil || len(keys) != 0 {
		t.Errorf("passkeys after the refusal: %d (%v), want none", len(keys), err)
	}
}

// softwareAttestation answers creation options with the JSON of a new RSA
// credential of a software authenticator (RSA: its encoding has no
// short-coordinate quirk) on the relying party of the test.
func softwareAttestation(t testing.TB, options json.RawMessage) json.RawMessage {
	t.Helper()
	opts, err := virtualwebauthn.ParseAttestationOptions(string(options))
	if err != nil {
		t.Fatalf("creation options %s: %v", options, err)
	}
	rp := virtualwebauthn.RelyingParty{ID: "example.test", Name: "actionkit", Origin: "https://app.example.test"}
	authn := virtualwebauthn.NewAuthenticator()
	authn.Options.UserHandle = []byte(opts.UserID)
	cred := virtualwebauthn.NewCredential(virtualwebauthn.KeyTypeRSA)
	return json.RawMessage(virtualwebauthn.CreateAttestationResponse(rp, authn, cred, *opts))
}
