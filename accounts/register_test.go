package accounts_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// TestRegister: registration stores the account (address trimmed and
// lowercased, password hashed, defaults filled) and its first session in
// one go, counted as its first login and recorded as a register event of
// that session from the request's address and agent; it queues the
// verification mail and hands out tokens and a device value.
func TestRegister(t *testing.T) {
	env := newEnv(t)
	users, o, email := env.Users, accountstest.Origin(action.App), accountstest.NewEmail()
	iss, err := users.Register(t.Context(), accounts.NewAccount{
		Email: "  " + strings.ToUpper(email) + " ", Password: accountstest.Password, FirstName: "Ada",
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	acc := users.Reload(t, iss.Account.ID)
	if acc.Email != email || acc.FirstName != "Ada" || acc.Timezone != "UTC" || acc.Locale != "en" || !acc.IsActive ||
		acc.LoginCount != 1 || acc.LastLoginAt == nil || acc.EmailVerifiedAt != nil || acc.TokenVersion != 0 {
		t.Errorf("stored account %+v", acc)
	}
	if ok, _, err := env.Hasher.Verify(t.Context(), acc.Password, accountstest.Password); !ok || err != nil {
		t.Errorf("the stored hash %q does not verify the password: %v", acc.Password, err)
	}
	live := users.Live(t, acc.ID)
	if len(live) != 1 || live[0].ID != iss.Session.ID || live[0].SessionID != iss.Session.ID || live[0].Client != "app" ||
		live[0].Platform != "ios" || live[0].RefreshTokenHash != auth.HashOpaqueToken(iss.RefreshToken) ||
		live[0].IPAddress == nil || *live[0].IPAddress != o.IP {
		t.Errorf("sessions %+v, want the one issued (%v)", live, iss.Session.ID)
	}
	evs := users.EventsOf(t, acc.ID)
	if len(evs) != 1 || evs[0].Type != models.EventRegister || evs[0].SessionID == nil || *evs[0].SessionID != iss.Session.ID ||
		*evs[0].IPAddress != o.IP || *evs[0].UserAgent != o.UserAgent {
		t.Errorf("events %+v, want one register event of the session", evs)
	}
	if mails := env.Mails(t, email); len(mails) != 1 || mails[0].Kind != mail.EmailVerify ||
		!strings.HasPrefix(mails[0].Link, "https://app.example/verify?token=") {
		t.Errorf("mails %+v, want one verification mail", mails)
	}
	claims, err := env.Tokens.Parse(action.OwnerType("user"), iss.AccessToken)
	if err != nil || claims.Subject != acc.ID || claims.SessionID != iss.Session.ID || claims.Client != action.App {
		t.Errorf("access token claims %+v (%v)", claims, err)
	}
	if iss.Device == "" {
		t.Error("no device value handed out")
	}
}

// TestRegisterTakenAddress: an address already used, in any case and by a
// soft-deleted account too, is ErrExists, and nothing is written.
func TestRegisterTakenAddress(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	live := users.NewAccount(t)
	deleted := users.NewAccount(t)
	if _, err := users.Management.Delete(t.Context(), deleted.ID, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{live.Email, strings.ToUpper(live.Email), deleted.Email} {
		_, err := users.Register(t.Context(), accounts.NewAccount{Email: email, Password: accountstest.Password},
			accountstest.Origin(action.Web))
		if !errors.Is(err, accounts.ErrExists) {
			t.Errorf("register %s: got %v, want ErrExists", email, err)
		}
	}
	if n := len(users.EventTypes(t, live.ID)); n != 0 {
		t.Errorf("%d events of the existing account", n)
	}
	if mails := env.Mails(t, live.Email); len(mails) != 0 {
		t.Errorf("mails %+v sent to the existing address", mails)
	}
}

// TestRegisterConcurrently: of ten concurrent registrations of one
// address, half of them spelt in capitals, exactly one creates the
// account; the others are ErrExists.
func TestRegisterConcurrently(t *testing.T) {
	env := newEnv(t)
	email := accountstest.NewEmail()
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		spelt := email
		if i%2 == 1 {
			spelt = strings.ToUpper(email)
		}
		wg.Go(func() {
			<-start
			_, errs[i] = env.Users.Register(t.Context(), accounts.NewAccount{Email: spelt, Password: accountstest.Password},
				accountstest.Origin(action.Web))
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !errors.Is(err, accounts.ErrExists):
			t.Errorf("a registration failed with %v", err)
		}
	}
	if created != 1 {
		t.Errorf("%d registrations succeeded, want 1", created)
	}
}

// TestRegisterWithoutMail: an engine without mail (the admins') registers
// all the same and queues nothing.
func TestRegisterWithoutMail(t *testing.T) {
	env := newEnv(t)
	email := accountstest.NewEmail()
	iss, err := env.Admins.Register(t.Context(), accounts.NewAccount{Email: email, Password: accountstest.Password},
		accountstest.Origin(action.Web))
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Admins.EventTypes(t, iss.Account.ID); len(got) != 1 || got[0] != models.EventRegister {
		t.Errorf("events %q, want [register]", got)
	}
	if mails := env.Mails(t, email); len(mails) != 0 {
		t.Errorf("mails %+v", mails)
	}
}
