package accounts_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// withPasskeys gives the users' engine of env the relying party
// softwareAttestation answers for.
func withPasskeys(t *testing.T, env *accountstest.Env) *accountstest.Service {
	t.Helper()
	rp, err := accounts.NewRelyingParty(accounts.WebAuthnSettings{RPID: "example.test", RPName: "actionkit",
		Origins: []string{"https://app.example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Users.PasskeyFlows.WebAuthn = rp
	return env.Users
}

// addPasskey registers a new software passkey named name for acc, from its
// session.
func addPasskey(t *testing.T, users *accountstest.Service, acc *models.Account, session uuid.UUID, name string) *models.Passkey {
	t.Helper()
	opts, err := users.PasskeyFlows.PasskeyRegisterOptions(t.Context(), acc.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	p, err := users.PasskeyFlows.RegisterPasskey(t.Context(), acc.ID, session, opts.ChallengeID.String(),
		softwareAttestation(t, opts.Options), name, accountstest.Origin(action.Web))
	if err != nil {
		t.Fatalf("register passkey %s: %v", name, err)
	}
	return p
}

// TestPasskeyRenameAndRemove: an owner renames and removes its own
// passkeys only. Removing the last way to sign in is refused: an account
// without a password keeps its last passkey, one with a password may
// remove it, and is then without a second factor, its recovery codes
// gone too.
func TestPasskeyRenameAndRemove(t *testing.T) {
	env := newEnv(t)
	users, o := withPasskeys(t, env), accountstest.Origin(action.Web)
	pk := users.PasskeyFlows
	acc, iss := users.LoggedIn(t, action.Web)
	p1 := addPasskey(t, users, acc, iss.Session.SessionID, "One")
	p2 := addPasskey(t, users, acc, iss.Session.SessionID, "Two")
	stranger := users.NewAccount(t)

	if got, err := pk.RenamePasskey(t.Context(), acc.ID, p1.ID, "First"); err != nil || got.Name != "First" || got.ID != p1.ID {
		t.Errorf("renamed %+v, %v", got, err)
	}
	if _, err := pk.RenamePasskey(t.Context(), stranger.ID, p1.ID, "Mine"); !errors.Is(err, accounts.ErrPasskeyNotFound) {
		t.Errorf("a stranger's rename: %v, want ErrPasskeyNotFound", err)
	}
	if err := pk.RemovePasskey(t.Context(), stranger.ID, p1.ID, o); !errors.Is(err, accounts.ErrPasskeyNotFound) {
		t.Errorf("a stranger's removal: %v, want ErrPasskeyNotFound", err)
	}

	// Without a password (an account made another way), the last passkey stays.
	password := users.Reload(t, acc.ID).Password
	setPassword := func(hash string) {
		t.Helper()
		if _, err := env.DB.ExecContext(t.Context(), `UPDATE users SET password = $2 WHERE id = $1`, acc.ID, hash); err != nil {
			t.Fatal(err)
		}
	}
	setPassword("")
	if err := pk.RemovePasskey(t.Context(), acc.ID, p1.ID, o); err != nil {
		t.Fatal(err)
	}
	if err := pk.RemovePasskey(t.Context(), acc.ID, p1.ID, o); !errors.Is(err, accounts.ErrPasskeyNotFound) {
		t.Errorf("removing it again: %v, want ErrPasskeyNotFound", err)
	}
	if err := pk.RemovePasskey(t.Context(), acc.ID, p2.ID, o); !errors.Is(err, accounts.ErrLastSignInMethod) {
		t.Errorf("removing the last way to sign in: %v, want ErrLastSignInMethod", err)
	}
	if list, err := pk.ListPasskeys(t.Context(), acc.ID); err != nil || len(list) != 1 || list[0].ID != p2.ID {
		t.Errorf("passkeys left: %+v, %v; want the second", list, err)
	}

	// With a password, the last passkey may go, and the second factor with
	// it: its recovery codes too.
	setPassword(password)
	if codes, err := users.SecondFactors.RegenerateRecoveryCodes(t.Context(), acc.ID, o); err != nil || len(codes) != 10 {
		t.Fatalf("recovery codes %v, %v", codes, err)
	}
	if err := pk.RemovePasskey(t.Context(), acc.ID, p2.ID, o); err != nil {
		t.Fatal(err)
	}
	if st, err := users.SecondFactors.Status(t.Context(), acc.ID); err != nil || st.Enabled || st.RecoveryCodesRemaining != 0 {
		t.Errorf("after the last passkey: %+v, %v; want no second factor and no recovery code", st, err)
	}
	if users.Reload(t, acc.ID).MFAEnabled {
		t.Error("mfaEnabled with no passkey left")
	}
	removed := 0
	for _, typ := range users.EventTypes(t, acc.ID) {
		if typ == models.EventPasskeyRemoved {
			removed++
		}
	}
	if removed != 2 {
		t.Errorf("%d passkey_removed events, want 2", removed)
	}
}
