package accounts_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/queues"
)

// TestChangePassword: the new password replaces the old, the token
// version goes up and every other session ends (reported by id), in one
// password_changed event counting them; the caller's session continues
// under its id, client and platform with new tokens, and its previous
// refresh token is now a replay.
func TestChangePassword(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc, caller := users.LoggedIn(t, action.App)
	other := users.NewSession(t, acc, action.Web)
	users.Forget()
	const next = "Another-horse-battery-7"
	iss, err := users.Credentials.ChangePassword(t.Context(), acc.ID, caller.Session.ID, accountstest.Password, next, accountstest.Origin(action.Web))
	if err != nil {
		t.Fatal(err)
	}
	if got := users.Reload(t, acc.ID); got.TokenVersion != 1 {
		t.Errorf("token version %d, want 1", got.TokenVersion)
	}
	live := users.Live(t, acc.ID)
	if len(live) != 1 || live[0].SessionID != caller.Session.ID || live[0].ID != iss.Session.ID || live[0].Client != "app" ||
		live[0].Platform != "ios" || iss.AccessToken == "" || iss.RefreshToken == caller.RefreshToken {
		t.Errorf("%d live sessions, issued session %v of chain %v (%s/%s); want the caller's %v continued with new tokens",
			len(live), iss.Session.ID, iss.Session.SessionID, iss.Session.Client, iss.Session.Platform, caller.Session.ID)
	}
	ev := users.EventsOf(t, acc.ID)[0]
	if ev.Type != models.EventPasswordChanged || *ev.SessionID != caller.Session.ID || accountstest.EventData(t, ev)["revoked"] != 1.0 {
		t.Errorf("event %s of %v with %s, want password_changed of the caller's session revoking 1", ev.Type, ev.SessionID, ev.Data)
	}
	if got := users.EndedCalls(); len(got) != 1 || !slices.Equal(got[0].Sessions, []uuid.UUID{other.Session.ID}) {
		t.Errorf("ended %+v, want the other session alone", got)
	}
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, accountstest.Origin(action.Web)); !errors.Is(err, accounts.ErrInvalidCredentials) {
		t.Errorf("the old password: %v, want ErrInvalidCredentials", err)
	}
	if _, err := users.Login(t.Context(), acc.Email, next, accountstest.Origin(action.Web)); err != nil {
		t.Errorf("the new password: %v", err)
	}
	users.Forget()
	if _, err := users.Refresh(t.Context(), caller.RefreshToken, accountstest.Origin(action.App)); !errors.Is(err, accounts.ErrInvalidRefresh) ||
		!slices.Equal(users.Outcomes(), []string{"replay"}) {
		t.Errorf("the caller's previous refresh token: %v, outcomes %q; want a replay", err, users.Outcomes())
	}
}

// TestChangePasswordRefusals: a wrong current password, the same password,
// an inactive account or the caller's session ended meanwhile change
// nothing; repeated wrong current passwords are slowed down like logins.
func TestChangePasswordRefusals(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, iss := users.LoggedIn(t, action.Web)
	change := func(current, next string) error {
		_, err := users.Credentials.ChangePassword(t.Context(), acc.ID, iss.Session.ID, current, next, o)
		return err
	}
	if err := change(accountstest.Password, accountstest.Password); !errors.Is(err, accounts.ErrSamePassword) {
		t.Errorf("the same password: %v, want ErrSamePassword", err)
	}
	for range accountstest.SlowDownAfter {
		if err := change("Wrong-password-1", "Another-horse-battery-7"); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("a wrong current password: %v, want ErrInvalidCredentials", err)
		}
	}
	if err := change(accountstest.Password, "Another-horse-battery-7"); !errors.Is(err, accounts.ErrSlowedDown) {
		t.Errorf("after %d wrong current passwords: %v, want slowed down", accountstest.SlowDownAfter, err)
	}
	env.Clock.Advance(accountstest.SlowDownFirst)
	if err := users.Logout(t.Context(), acc.ID, iss.Session.ID, "", o); err != nil {
		t.Fatal(err)
	}
	if err := change(accountstest.Password, "Another-horse-battery-7"); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("from an ended session: %v, want ErrSessionEnded", err)
	}
	inactive, its := users.LoggedIn(t, action.Web)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Credentials.ChangePassword(t.Context(), inactive.ID, its.Session.ID, accountstest.Password, "Another-horse-battery-7", o); !errors.Is(err, accounts.ErrInactive) {
		t.Errorf("an inactive account: %v, want ErrInactive", err)
	}
	for _, a := range []*models.Account{acc, inactive} {
		if got := users.Reload(t, a.ID); got.Password != a.Password || got.TokenVersion != a.TokenVersion {
			t.Errorf("%s: the password or the token version changed after refusals", a.Email)
		}
		for _, typ := range users.EventTypes(t, a.ID) {
			if typ == models.EventPasswordChanged {
				t.Errorf("%s: a password_changed event after refusals", a.Email)
			}
		}
	}
}

// TestRequestPasswordReset: the request only queues its job, with the
// address trimmed and lowercased and the request's origin, whatever the
// address; an engine without mail refuses it.
func TestRequestPasswordReset(t *testing.T) {
	env := newEnv(t)
	o := accountstest.Origin(action.Web)
	for _, email := range []string{" Someone@Example.COM ", accountstest.NewEmail()} {
		if err := env.Users.Credentials.RequestPasswordReset(t.Context(), email, o); err != nil {
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
	if err := env.Admins.Credentials.RequestPasswordReset(t.Context(), "a@example.com", o); !errors.Is(err, accounts.ErrMailUnavailable) {
		t.Errorf("without mail: %v, want ErrMailUnavailable", err)
	}
}

// TestRunPasswordResetRequest: the job mails an active owner a reset link
// and records the request (mailed), up to MailBound mails an hour, after
// which it records the request unmailed; an unknown address or an
// inactive owner gets nothing and records nothing. A new token voids the
// earlier ones.
func TestRunPasswordResetRequest(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc := users.NewAccount(t)
	for i := range accounts.MailBound + 1 {
		if err := users.Credentials.RunPasswordResetRequest(t.Context(), acc.Email, o); err != nil {
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
	if _, err := users.Credentials.ResetPassword(t.Context(), accountstest.TokenOf(t, mails[0]), "Another-horse-battery-7", o); !errors.Is(err, accounts.ErrInvalidToken) {
		t.Errorf("a token voided by a later one: %v, want ErrInvalidToken", err)
	}
	if _, err := users.Credentials.ResetPassword(t.Context(), accountstest.TokenOf(t, mails[len(mails)-1]), "Another-horse-battery-7", o); err != nil {
		t.Errorf("the latest token: %v", err)
	}

	inactive := users.NewAccount(t)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{inactive.Email, accountstest.NewEmail()} {
		if err := users.Credentials.RunPasswordResetRequest(t.Context(), email, o); err != nil {
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
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, _ := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	token := resetToken(t, env, acc)
	var stored int
	if err := env.DB.GetContext(t.Context(), &stored, `SELECT count(*) FROM account_tokens WHERE token_hash = $1 AND purpose = 'password_reset' AND owner_id = $2`,
		auth.HashOpaqueToken(token), acc.ID); err != nil || stored != 1 {
		t.Fatalf("the token is not stored as its SHA-256: %d rows, %v", stored, err)
	}
	users.Forget()
	const next = "Another-horse-battery-7"
	device, err := users.Credentials.ResetPassword(t.Context(), token, next, o)
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
	if _, err := users.Login(t.Context(), acc.Email, next, o); err != nil {
		t.Errorf("the new password: %v", err)
	}

	expired := resetToken(t, env, users.NewAccount(t))
	inactive := users.NewAccount(t)
	ofInactive := resetToken(t, env, inactive)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	verify, err := users.Register(t.Context(), accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := auth.NewOpaqueToken()
	env.Clock.Advance(accountstest.ResetTTL / 2)
	for name, raw := range map[string]string{
		"used": token, "malformed": "not-a-token", "unknown": unknown, "of an inactive owner": ofInactive,
		"for verification": accountstest.TokenOf(t, env.Mails(t, verify.Account.Email)[0]),
	} {
		if _, err := users.Credentials.ResetPassword(t.Context(), raw, next, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("a token %s: %v, want ErrInvalidToken", name, err)
		}
	}
	env.Clock.Advance(accountstest.ResetTTL / 2)
	if _, err := users.Credentials.ResetPassword(t.Context(), expired, next, o); !errors.Is(err, accounts.ErrInvalidToken) {
		t.Errorf("an expired token: %v, want ErrInvalidToken", err)
	}
	if got := users.Reload(t, inactive.ID); got.Password != inactive.Password {
		t.Error("the inactive owner's password changed")
	}
}

// resetToken runs a reset request of acc and returns the token mailed.
func resetToken(t *testing.T, env *accountstest.Env, acc *models.Account) string {
	t.Helper()
	if err := env.Users.Credentials.RunPasswordResetRequest(t.Context(), acc.Email, accountstest.Origin(action.Web)); err != nil {
		t.Fatal(err)
	}
	mails := env.Mails(t, acc.Email)
	return accountstest.TokenOf(t, mails[len(mails)-1])
}

// TestVerifyEmail: the token of the registration's mail marks the address
// verified, with an email_verified event; it works once, and a malformed
// token or a reset token is ErrInvalidToken. Where verification is
// required, the login waits for it.
func TestVerifyEmail(t *testing.T) {
	env := newEnv(t)
	users, o := env.NewService(t, accounts.Users), accountstest.Origin(action.Web)
	users.Mail.RequireVerified = true
	email := accountstest.NewEmail()
	iss, err := users.Register(t.Context(), accounts.NewAccount{Email: email, Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Login(t.Context(), email, accountstest.Password, o); !errors.Is(err, accounts.ErrNotVerified) {
		t.Errorf("login before verification: %v, want ErrNotVerified", err)
	}
	token := accountstest.TokenOf(t, env.Mails(t, email)[0])
	acc, err := users.Credentials.VerifyEmail(t.Context(), token, o)
	if err != nil || acc.ID != iss.Account.ID || acc.EmailVerifiedAt == nil {
		t.Fatalf("VerifyEmail = %+v, %v", acc, err)
	}
	if got := users.Reload(t, acc.ID); got.EmailVerifiedAt == nil {
		t.Error("the address is not stored as verified")
	}
	if ev := users.EventsOf(t, acc.ID)[0]; ev.Type != models.EventEmailVerified || *ev.IPAddress != o.IP {
		t.Errorf("event %s, want email_verified", ev.Type)
	}
	if _, err := users.Login(t.Context(), email, accountstest.Password, o); err != nil {
		t.Errorf("login after verification: %v", err)
	}
	other := users.NewAccount(t)
	if err := users.Credentials.RunPasswordResetRequest(t.Context(), other.Email, o); err != nil {
		t.Fatal(err)
	}
	reset := accountstest.TokenOf(t, env.Mails(t, other.Email)[0])
	for name, raw := range map[string]string{"used": token, "malformed": "x", "for a reset": reset} {
		if _, err := users.Credentials.VerifyEmail(t.Context(), raw, o); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Errorf("a token %s: %v, want ErrInvalidToken", name, err)
		}
	}
	if got := users.Reload(t, other.ID); got.EmailVerifiedAt != nil {
		t.Error("a reset token verified an address")
	}
}

// TestRequestEmailVerification: an unverified owner gets a new mail, up to
// MailBound an hour (the registration's counts), whose token voids the
// earlier ones; a verified one gets none; an engine without mail refuses.
func TestRequestEmailVerification(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	iss, err := users.Register(t.Context(), accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	id := iss.Account.ID
	for i := 2; i <= accounts.MailBound+1; i++ {
		env.Clock.Advance(time.Second) // each mail's content outlives the one before
		sent, err := users.Credentials.RequestEmailVerification(t.Context(), id)
		if want := i <= accounts.MailBound; err != nil || sent != want {
			t.Errorf("request %d: sent %v, %v; want %v", i, sent, err, want)
		}
	}
	mails := env.Mails(t, iss.Account.Email)
	if len(mails) != accounts.MailBound || mails[len(mails)-1].Kind != mail.EmailVerify {
		t.Fatalf("%d mails, want %d verification mails", len(mails), accounts.MailBound)
	}
	if _, err := users.Credentials.VerifyEmail(t.Context(), accountstest.TokenOf(t, mails[0]), o); !errors.Is(err, accounts.ErrInvalidToken) {
		t.Errorf("a token voided by a later one: %v, want ErrInvalidToken", err)
	}
	if _, err := users.Credentials.VerifyEmail(t.Context(), accountstest.TokenOf(t, mails[len(mails)-1]), o); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(accounts.MailBoundWindow)
	if sent, err := users.Credentials.RequestEmailVerification(t.Context(), id); err != nil || sent {
		t.Errorf("a verified address: sent %v, %v; want nothing", sent, err)
	}
	if _, err := env.Admins.Credentials.RequestEmailVerification(t.Context(), env.Admins.NewAccount(t).ID); !errors.Is(err, accounts.ErrMailUnavailable) {
		t.Errorf("without mail: %v, want ErrMailUnavailable", err)
	}
}
