package accounts_test

import (
	"errors"
	"testing"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// TestUnusedOneTimeTokensDieWithTheChange gives an owner an unused
// verification token, an unused reset token and an unused e-mail change
// token, then makes one change that ends its credentials or sessions:
// afterwards none of the tokens works, also where the change leaves the
// account usable again (as reactivation and restore do).
func TestUnusedOneTimeTokensDieWithTheChange(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	const next = "Another-horse-battery-7"
	for _, tc := range []struct {
		name   string
		change func(acc *models.Account, iss *accounts.Issued, reset string) error
	}{
		{"password change", func(acc *models.Account, iss *accounts.Issued, _ string) error {
			_, err := users.Credentials.ChangePassword(t.Context(), acc.ID, iss.Session.SessionID, accountstest.Password, next, o)
			return err
		}},
		{"password reset", func(_ *models.Account, _ *accounts.Issued, reset string) error {
			_, err := users.Credentials.ResetPassword(t.Context(), reset, next, o)
			return err
		}},
		{"logoutall", func(acc *models.Account, iss *accounts.Issued, _ string) error {
			return users.LogoutAll(t.Context(), acc.ID, iss.Session.SessionID, o, nil)
		}},
		{"admin revokesessions", func(acc *models.Account, _ *accounts.Issued, _ string) error {
			return users.Management.RevokeSessions(t.Context(), acc.ID, accounts.Actor{})
		}},
		{"theft response", func(_ *models.Account, iss *accounts.Issued, _ string) error {
			if _, err := users.Refresh(t.Context(), iss.RefreshToken, o); err != nil {
				return err
			}
			if _, err := users.Refresh(t.Context(), iss.RefreshToken, o); !errors.Is(err, accounts.ErrInvalidRefresh) {
				return errors.New("the replay was not refused")
			}
			return nil
		}},
		{"deactivation", func(acc *models.Account, _ *accounts.Issued, _ string) error {
			if _, err := users.Management.SetActive(t.Context(), acc.ID, false, accounts.Actor{}); err != nil {
				return err
			}
			_, err := users.Management.SetActive(t.Context(), acc.ID, true, accounts.Actor{})
			return err
		}},
		{"deletion", func(acc *models.Account, _ *accounts.Issued, _ string) error {
			if _, err := users.Management.Delete(t.Context(), acc.ID, accounts.Actor{}); err != nil {
				return err
			}
			_, err := users.Management.Restore(t.Context(), acc.ID, accounts.Actor{})
			return err
		}},
	} {
		iss, err := users.Register(t.Context(), accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
		if err != nil {
			t.Fatal(err)
		}
		acc := iss.Account
		verify := env.MailOf(t, acc.Email, mail.EmailVerify)
		if err := users.Credentials.RunPasswordResetRequest(t.Context(), acc.Email, o); err != nil {
			t.Fatal(err)
		}
		reset := env.MailOf(t, acc.Email, mail.PasswordReset)
		newEmail := accountstest.NewEmail()
		if err := users.Credentials.RequestEmailChange(t.Context(), acc.ID, newEmail); err != nil {
			t.Fatal(err)
		}
		change := env.MailOf(t, newEmail, mail.EmailChange)
		if err := tc.change(acc, iss, reset); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := users.Credentials.ConfirmEmailChange(t.Context(), change, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("%s: the e-mail change token: %v, want ErrInvalidToken", tc.name, err)
		}
		if _, err := users.Credentials.VerifyEmail(t.Context(), verify, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("%s: the verification token: %v, want ErrInvalidToken", tc.name, err)
		}
		if _, err := users.Credentials.ResetPassword(t.Context(), reset, "Yet-another-horse-8", o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("%s: the reset token: %v, want ErrInvalidToken", tc.name, err)
		}
	}
}
