package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// TestVerifyEmail: the token of the registration's mail marks the address
// verified, with an email_verified event; it works once, and a malformed
// token or a reset token is ErrInvalidToken. Where verification is
// required, the login waits for it.
func TestVerifyEmail(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.NewService(t, accounts.Users), context.Background(), accountstest.Origin(action.Web)
	users.Mail.RequireVerified = true
	email := accountstest.NewEmail()
	iss, err := users.Register(ctx, accounts.NewAccount{Email: email, Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Login(ctx, email, accountstest.Password, o); !errors.Is(err, accounts.ErrNotVerified) {
		t.Errorf("login before verification: %v, want ErrNotVerified", err)
	}
	token := accountstest.TokenOf(t, env.Mails(t, email)[0])
	acc, err := users.VerifyEmail(ctx, token, o)
	if err != nil || acc.ID != iss.Account.ID || acc.EmailVerifiedAt == nil {
		t.Fatalf("VerifyEmail = %+v, %v", acc, err)
	}
	if got := users.Reload(t, acc.ID); got.EmailVerifiedAt == nil {
		t.Error("the address is not stored as verified")
	}
	if ev := users.EventsOf(t, acc.ID)[0]; ev.Type != models.EventEmailVerified || *ev.IPAddress != o.IP {
		t.Errorf("event %s, want email_verified", ev.Type)
	}
	if _, err := users.Login(ctx, email, accountstest.Password, o); err != nil {
		t.Errorf("login after verification: %v", err)
	}
	other := users.NewAccount(t)
	if err := users.RunPasswordResetRequest(ctx, other.Email, o); err != nil {
		t.Fatal(err)
	}
	reset := accountstest.TokenOf(t, env.Mails(t, other.Email)[0])
	for name, raw := range map[string]string{"used": token, "malformed": "x", "for a reset": reset} {
		if _, err := users.VerifyEmail(ctx, raw, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("a token %s: %v, want ErrInvalidToken", name, err)
		}
	}
	if got := users.Reload(t, other.ID); got.EmailVerifiedAt != nil {
		t.Error("a reset token verified an address")
	}
}

// TestRequestEmailVerification: an unverified owner gets a new mail, up to
// MailBound an hour (the registration's counts); a verified one gets none;
// an engine without mail refuses.
func TestRequestEmailVerification(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	iss, err := users.Register(ctx, accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	id := iss.Account.ID
	for i := 2; i <= accounts.MailBound+1; i++ {
		env.Clock.Advance(time.Second) // each mail's content outlives the one before
		sent, err := users.RequestEmailVerification(ctx, id)
		if want := i <= accounts.MailBound; err != nil || sent != want {
			t.Errorf("request %d: sent %v, %v; want %v", i, sent, err, want)
		}
	}
	mails := env.Mails(t, iss.Account.Email)
	if len(mails) != accounts.MailBound || mails[len(mails)-1].Kind != mail.EmailVerify {
		t.Fatalf("%d mails, want %d verification mails", len(mails), accounts.MailBound)
	}
	if _, err := users.VerifyEmail(ctx, accountstest.TokenOf(t, mails[len(mails)-1]), o); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(accounts.MailBoundWindow)
	if sent, err := users.RequestEmailVerification(ctx, id); err != nil || sent {
		t.Errorf("a verified address: sent %v, %v; want nothing", sent, err)
	}
	if _, err := env.Admins.RequestEmailVerification(ctx, env.Admins.NewAccount(t).ID); !errors.Is(err, accounts.ErrMailUnavailable) {
		t.Errorf("without mail: %v, want ErrMailUnavailable", err)
	}
}
