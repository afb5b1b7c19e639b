package accounts_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// TestRequestPasswordReset: the request only queues its job, with the
// address trimmed and lowercased and the request's origin, whatever the
// address; an engine without mail refuses it.
func TestRequestPasswordReset(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	o := accountstest.Origin(action.Web)
	for _, email := range []string{" Someone@Example.COM ", accountstest.NewEmail()} {
		if err := env.Users.RequestPasswordReset(context.Background(), email, o); err != nil {
			t.Fatal(err)
		}
	}
	jobs := env.Jobs(t, queues.MailQueue, accounts.V1RequestPasswordResetTask)
	if len(jobs) != 2 || jobs[1].ArgString("email") != "someone@example.com" || jobs[1].ArgString("ip") != o.IP ||
		jobs[1].ArgString("userAgent") != o.UserAgent {
		t.Errorf("jobs %+v, want two, the first for someone@example.com from the request", jobs)
	}
	if len(env.Mails(t, "someone@example.com")) != 0 {
		t.Error("the request itself queued a mail")
	}
	if err := env.Admins.RequestPasswordReset(context.Background(), "a@example.com", o); !errors.Is(err, accounts.ErrMailUnavailable) {
		t.Errorf("without mail: %v, want ErrMailUnavailable", err)
	}
}

// TestRunPasswordResetRequest: the job mails an active owner a reset link
// and records the request (mailed), up to MailBound mails an hour, after
// which it records the request unmailed; an unknown address or an
// inactive owner gets nothing and records nothing. A new token voids the
// earlier ones.
func TestRunPasswordResetRequest(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc := users.NewAccount(t)
	for i := range accounts.MailBound + 1 {
		if err := users.RunPasswordResetRequest(ctx, acc.Email, o); err != nil {
			t.Fatal(err)
		}
		ev := users.EventsOf(t, acc.ID)[0]
		if want := i < accounts.MailBound; ev.Type != models.EventPasswordResetRequested || accountstest.EventData(t, ev)["mailed"] != want ||
			*ev.IPAddress != o.IP {
			t.Errorf("request %d: event %s with %s, want password_reset_requested mailed %v", i+1, ev.Type, ev.Data, want)
		}
		env.Clock.Advance(time.Second) // each mail's content outlives the one before
	}
	mails := env.Mails(t, acc.Email)
	if len(mails) != accounts.MailBound || mails[0].Kind != mail.PasswordReset || !strings.HasPrefix(mails[0].Link, "https://app.example/reset?token=") {
		t.Fatalf("mails %+v, want %d reset mails", mails, accounts.MailBound)
	}
	if _, err := users.ResetPassword(ctx, accountstest.TokenOf(t, mails[0]), "Another-horse-battery-7", o); !errors.Is(err, accounts.ErrInvalidToken) {
		t.Errorf("a token voided by a later one: %v, want ErrInvalidToken", err)
	}
	if _, err := users.ResetPassword(ctx, accountstest.TokenOf(t, mails[len(mails)-1]), "Another-horse-battery-7", o); err != nil {
		t.Errorf("the latest token: %v", err)
	}

	inactive := users.NewAccount(t)
	if _, err := users.SetActive(ctx, inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{inactive.Email, accountstest.NewEmail()} {
		if err := users.RunPasswordResetRequest(ctx, email, o); err != nil {
			t.Fatal(err)
		}
		if mails := env.Mails(t, email); len(mails) != 0 {
			t.Errorf("%s got %d mails", email, len(mails))
		}
	}
	if got := users.EventTypes(t, inactive.ID); len(got) != 1 || got[0] != models.EventAccountDeactivated {
		t.Errorf("events of the inactive owner %q, want its deactivation only", got)
	}
}

// TestResetPassword: a reset token sets the password, raises the token
// version and ends every session (reported as all), in one password_reset
// event counting them; it does not log in but trusts the client (a device
// value). The token works once; a malformed, unknown, expired or
// verification token, or one of an owner deactivated since, is
// ErrInvalidToken and changes nothing.
func TestResetPassword(t *testing.T) {
	t.Parallel()
	env := accountstest.New(t)
	users, ctx, o := env.Users, context.Background(), accountstest.Origin(action.Web)
	acc, _ := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	token := resetToken(t, env, acc)
	users.Forget()
	const next = "Another-horse-battery-7"
	device, err := users.ResetPassword(ctx, token, next, o)
	if err != nil || device == "" {
		t.Fatalf("ResetPassword = %q, %v", device, err)
	}
	if got := users.Reload(t, acc.ID); got.TokenVersion != 1 || len(users.Live(t, acc.ID)) != 0 {
		t.Errorf("token version %d and %d live sessions, want 1 and none", got.TokenVersion, len(users.Live(t, acc.ID)))
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventPasswordReset || ev.SessionID != nil || accountstest.EventData(t, ev)["revoked"] != 2.0 {
		t.Errorf("event %s with %s, want password_reset revoking 2", ev.Type, ev.Data)
	}
	if got := users.EndedCalls(); len(got) != 1 || got[0].Sessions != nil {
		t.Errorf("ended %+v, want every session", got)
	}
	if _, err := users.Login(ctx, acc.Email, next, o); err != nil {
		t.Errorf("the new password: %v", err)
	}

	expired := resetToken(t, env, users.NewAccount(t))
	inactive := users.NewAccount(t)
	ofInactive := resetToken(t, env, inactive)
	if _, err := users.SetActive(ctx, inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	verify, err := users.Register(ctx, accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := auth.NewRefreshToken()
	env.Clock.Advance(accountstest.ResetTTL / 2)
	for name, raw := range map[string]string{
		"used": token, "malformed": "not-a-token", "unknown": unknown, "of an inactive owner": ofInactive,
		"for verification": accountstest.TokenOf(t, env.Mails(t, verify.Account.Email)[0]),
	} {
		if _, err := users.ResetPassword(ctx, raw, next, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("a token %s: %v, want ErrInvalidToken", name, err)
		}
	}
	env.Clock.Advance(accountstest.ResetTTL / 2)
	if _, err := users.ResetPassword(ctx, expired, next, o); !errors.Is(err, accounts.ErrInvalidToken) {
		t.Errorf("an expired token: %v, want ErrInvalidToken", err)
	}
	if got := users.Reload(t, inactive.ID); got.Password != inactive.Password {
		t.Error("the inactive owner's password changed")
	}
}

// resetToken runs a reset request of acc and returns the token mailed.
func resetToken(t *testing.T, env *accountstest.Env, acc *models.Account) string {
	t.Helper()
	if err := env.Users.RunPasswordResetRequest(context.Background(), acc.Email, accountstest.Origin(action.Web)); err != nil {
		t.Fatal(err)
	}
	mails := env.Mails(t, acc.Email)
	return accountstest.TokenOf(t, mails[len(mails)-1])
}
