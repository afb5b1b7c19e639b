package accounts_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// newPassword is the password the reset tests set.
const newPassword = "Another-horse-battery-7"

// resetWith runs a reset of acc to newPassword by the token of a reset
// mail.
func resetWith(t *testing.T, env *accountstest.Env, acc *models.Account) {
	t.Helper()
	o := accountstest.Origin(action.Web)
	if err := env.Users.Credentials.RunPasswordResetRequest(t.Context(), acc.Email, o); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Users.Credentials.ResetPassword(t.Context(), env.MailOf(t, acc.Email, mail.PasswordReset), newPassword, o); err != nil {
		t.Fatalf("reset: %v", err)
	}
}

// removedNotices returns what each methods_removed notice to acc lists.
func removedNotices(t *testing.T, env *accountstest.Env, acc *models.Account) [][]mail.Removal {
	t.Helper()
	var out [][]mail.Removal
	for _, m := range env.Mails(t, acc.Email) {
		if m.Kind == mail.MethodsRemoved {
			out = append(out, m.Removed)
		}
	}
	return out
}

// eventsWith returns the events of acc of type typ whose data holds
// every pair of want.
func eventsWith(t *testing.T, users *accountstest.Service, acc *models.Account, typ string, want map[string]any) int {
	t.Helper()
	n := 0
	for _, ev := range users.EventsOf(t, acc.ID) {
		if ev.Type != typ {
			continue
		}
		data, all := accountstest.EventData(t, ev), true
		for k, v := range want {
			all = all && data[k] == v
		}
		if all {
			n++
		}
	}
	return n
}

// TestResetRemovesPreHijackedIdentity: an identity linked to an account
// whose address was never verified (an attacker's, at a provider that does
// not vouch for addresses) is removed by a password reset, with an
// identity_unlinked event of the reset's reason; the address becomes
// verified and a notice lists the removed identity.
func TestResetRemovesPreHijackedIdentity(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc := users.NewAccount(t)
	if acc.EmailVerifiedAt != nil {
		t.Fatal("a new account's address is verified")
	}
	now := env.Clock.Now()
	if err := users.Identities.Insert(t.Context(), env.DB, &models.Identity{ID: uuid.Must(uuid.NewV7()), UserID: acc.ID,
		Provider: "idp", Subject: "attacker", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	resetWith(t, env, acc)
	if ids, err := users.Identities.ByUser(t.Context(), env.DB, acc.ID); err != nil || len(ids) != 0 {
		t.Errorf("%d identities after the reset (%v), want 0", len(ids), err)
	}
	if got := users.Reload(t, acc.ID); got.EmailVerifiedAt == nil {
		t.Error("the address is not verified after the reset")
	}
	if n := eventsWith(t, users, acc, models.EventIdentityUnlinked, map[string]any{"reason": "password_reset_unverified", "provider": "idp"}); n != 1 {
		t.Errorf("%d identity_unlinked events of the reset, want 1", n)
	}
	notices := removedNotices(t, env, acc)
	if len(notices) != 1 || len(notices[0]) != 1 || notices[0][0].Kind != mail.RemovedIdentity || notices[0][0].Name == "" {
		t.Errorf("notices %+v, want one listing the identity", notices)
	}
	if _, err := users.Login(t.Context(), acc.Email, newPassword, accountstest.Origin(action.Web)); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
}

// TestResetRemovesPreHijackedFactors: an attacker registers with the
// victim's address and adds TOTP and a passkey. The victim's reset removes
// both and the recovery codes, with their events, so that the next
// password login owes no second factor and the passkey no longer signs
// in; a notice lists each removal.
func TestResetRemovesPreHijackedFactors(t *testing.T) {
	env := newEnv(t)
	users := withPasskeys(t, env)
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	d := newDevice(virtualwebauthn.AuthenticatorOptions{})
	d.register(t, users, acc, totp.Issued.Session.SessionID, "Attacker key")

	resetWith(t, env, acc)
	for _, table := range []string{"webauthn_credentials", "mfa_totp", "mfa_recovery_codes"} {
		var n int
		if err := env.DB.GetContext(t.Context(), &n, `SELECT count(*) FROM `+table+` WHERE owner_id = $1`, acc.ID); err != nil || n != 0 {
			t.Errorf("%s: %d rows after the reset (%v), want 0", table, n, err)
		}
	}
	if got := users.Reload(t, acc.ID); got.MFAEnabled || got.EmailVerifiedAt == nil {
		t.Errorf("after the reset: second factor %v, verified at %v; want none, verified", got.MFAEnabled, got.EmailVerifiedAt)
	}
	if _, err := users.Login(t.Context(), acc.Email, newPassword, accountstest.Origin(action.Web)); err != nil {
		t.Errorf("login with the new password: %v, want one step", err)
	}
	if err := d.login(t, users, accountstest.Origin(action.Web)); !errors.Is(err, accounts.ErrInvalidPasskeyCredentials) {
		t.Errorf("the attacker's passkey: %v, want ErrInvalidPasskeyCredentials", err)
	}
	notices := removedNotices(t, env, acc)
	want := []mail.Removal{{Kind: mail.RemovedPasskey, Name: "Attacker key"}, {Kind: mail.RemovedTOTP}, {Kind: mail.RemovedRecoveryCodes}}
	if len(notices) != 1 || !slices.Equal(notices[0], want) {
		t.Errorf("notices %+v, want one listing %+v", notices, want)
	}
	reason := map[string]any{"reason": "password_reset_unverified"}
	if n := eventsWith(t, users, acc, models.EventPasskeyRemoved, reason); n != 1 {
		t.Errorf("%d passkey_removed events of the reset, want 1", n)
	}
	if n := eventsWith(t, users, acc, models.EventMFADisabled, reason); n != 1 {
		t.Errorf("%d mfa_disabled events of the reset, want 1", n)
	}
}

// TestResetOfVerifiedAccountKeepsFactors: a reset of an account whose
// address is verified removes nothing (its password_reset event says 0)
// and sends no notice of removals; the next login owes the second factor.
func TestResetOfVerifiedAccountKeepsFactors(t *testing.T) {
	env := newEnv(t)
	users := withPasskeys(t, env)
	o := accountstest.Origin(action.Web)
	iss, err := users.Register(t.Context(), accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	acc := iss.Account
	if _, err := users.Credentials.VerifyEmail(t.Context(), env.MailOf(t, acc.Email, mail.EmailVerify), o); err != nil {
		t.Fatal(err)
	}
	totp := env.WithTOTP(t, users, acc, iss)
	newDevice(virtualwebauthn.AuthenticatorOptions{}).register(t, users, acc, totp.Issued.Session.SessionID, "Mine")

	resetWith(t, env, acc)
	if _, err := users.Login(t.Context(), acc.Email, newPassword, o); !errors.Is(err, accounts.ErrMFARequired) {
		t.Errorf("login after the reset: %v, want ErrMFARequired", err)
	}
	if keys, err := users.PasskeyFlows.ListPasskeys(t.Context(), acc.ID); err != nil || len(keys) != 1 {
		t.Errorf("%d passkeys after the reset (%v), want 1", len(keys), err)
	}
	if st, err := users.SecondFactors.Status(t.Context(), acc.ID); err != nil || st.TOTPConfirmedAt == nil || st.RecoveryCodesRemaining != 10 {
		t.Errorf("second factors after the reset: %+v, %v; want TOTP and 10 recovery codes", st, err)
	}
	if n := eventsWith(t, users, acc, models.EventPasswordReset, map[string]any{"removed": 0.0}); n != 1 {
		t.Errorf("%d password_reset events removing nothing, want 1", n)
	}
	if notices := removedNotices(t, env, acc); len(notices) != 0 {
		t.Errorf("notices of removals %+v, want none", notices)
	}
}
