package accounts_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/ratelimit"
)

// TestLogin: a login counts itself on the account, opens a session of the
// request's client and platform, records a login event of that session,
// and hands out tokens and a device value; the address is matched in any
// case and with spaces around it.
func TestLogin(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc := users.NewAccount(t)
	o := accountstest.Origin(action.App)
	iss, err := users.Login(t.Context(), " "+strings.ToUpper(acc.Email)+" ", accountstest.Password, o)
	if err != nil {
		t.Fatal(err)
	}
	got := users.Reload(t, acc.ID)
	if got.LoginCount != 1 || got.LastLoginAt == nil || got.TokenVersion != 0 {
		t.Errorf("account after login: count %d, last %v, version %d", got.LoginCount, got.LastLoginAt, got.TokenVersion)
	}
	live := users.Live(t, acc.ID)
	if len(live) != 1 || live[0].ID != iss.Session.ID || live[0].Client != "app" || live[0].Platform != "ios" ||
		live[0].RefreshTokenHash != auth.HashOpaqueToken(iss.RefreshToken) {
		t.Errorf("sessions %+v, want the one issued", live)
	}
	evs := users.EventsOf(t, acc.ID)
	if len(evs) != 1 || evs[0].Type != models.EventLogin || *evs[0].SessionID != iss.Session.ID || *evs[0].IPAddress != o.IP {
		t.Errorf("events %+v, want one login event of the session", evs)
	}
	if iss.AccessToken == "" || iss.Device == "" || iss.Account.LoginCount != 1 {
		t.Errorf("issued %+v", iss)
	}
}

// TestLoginRefusals: a wrong password is refused before the account's
// flags are looked at, then an inactive, deleted or (where verification is
// required) unverified account; each refusal of a known account is
// recorded as login_failed with its reason, and none opens a session or
// counts a login. An unknown address records nothing.
func TestLoginRefusals(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	inactive, deleted, unverified := users.NewAccount(t), users.NewAccount(t), users.NewAccount(t)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Management.Delete(t.Context(), deleted.ID, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		acc      *models.Account
		password string
		verified bool // RequireVerified
		want     error
		reason   string
	}{
		{"wrong password", users.NewAccount(t), "Wrong-password-1", false, accounts.ErrInvalidCredentials, "invalid_credentials"},
		{"wrong password of an inactive account", inactive, "Wrong-password-1", false, accounts.ErrInvalidCredentials, "invalid_credentials"},
		{"inactive", inactive, accountstest.Password, false, accounts.ErrInactive, "account_inactive"},
		{"deleted", deleted, accountstest.Password, false, accounts.ErrDeleted, "account_deleted"},
		{"unverified", unverified, accountstest.Password, true, accounts.ErrNotVerified, "email_not_verified"},
		{"unknown address", &models.Account{Email: accountstest.NewEmail()}, accountstest.Password, false, accounts.ErrInvalidCredentials, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := env.NewService(t, accounts.Users) // RequireVerified for this case alone
			svc.Mail.RequireVerified = tc.verified
			before := len(svc.EventTypes(t, tc.acc.ID))
			iss, err := svc.Login(t.Context(), tc.acc.Email, tc.password, accountstest.Origin(action.Web))
			if !errors.Is(err, tc.want) || iss != nil {
				t.Fatalf("got %+v, %v; want %v", iss, err, tc.want)
			}
			evs := svc.EventsOf(t, tc.acc.ID)
			if tc.reason == "" {
				if len(evs) != 0 {
					t.Errorf("events %+v of an unknown address", evs)
				}
				return
			}
			if len(evs) != before+1 || evs[0].Type != models.EventLoginFailed || evs[0].SessionID != nil ||
				accountstest.EventData(t, evs[0])["reason"] != tc.reason {
				t.Errorf("events %+v, want a login_failed event for %s", evs, tc.reason)
			}
			if acc := svc.Reload(t, tc.acc.ID); acc.LoginCount != 0 || len(svc.SessionsOf(t, tc.acc.ID)) != 0 {
				t.Errorf("a refused login counted %d logins or opened a session", acc.LoginCount)
			}
		})
	}
}

// TestLoginRehashes: a password hashed with other parameters than the
// engine's is hashed again at login, with the engine's.
func TestLoginRehashes(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc := users.NewAccount(t)
	old, salt, err := auth.NewHasher(auth.HasherConfig{MemoryKiB: 2048, Time: 1}).Hash(t.Context(), accountstest.Password)
	if err != nil {
		t.Fatal(err)
	}
	if err := users.Accounts.SetPassword(t.Context(), users.DB, acc.ID, old, salt, users.Now()); err != nil {
		t.Fatal(err)
	}
	users.NewSession(t, acc, action.Web)
	got := users.Reload(t, acc.ID).Password
	if got == old || !strings.Contains(got, "m=1024,t=1,") {
		t.Errorf("stored hash %q after login, want one of the engine's parameters", got)
	}
	users.NewSession(t, acc, action.Web) // the new hash verifies
}

// TestLoginSlowDown: after SlowDownAfter failures (wrong passwords or an
// unknown address) from one client, its next attempt is refused with a
// SlowedDownError before the password is checked, even the right one,
// and records nothing; a refusal for the account's flags is no failure.
// Once the delay is over the right password logs in.
func TestLoginSlowDown(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc := users.NewAccount(t)
	for range accountstest.SlowDownAfter {
		if _, err := users.Login(t.Context(), acc.Email, "Wrong-password-1", o); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("a wrong password: %v", err)
		}
	}
	var slowed *accounts.SlowedDownError
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, o); !errors.As(err, &slowed) ||
		slowed.RetryAfter <= accountstest.SlowDownFirst-time.Second || slowed.RetryAfter > accountstest.SlowDownFirst {
		t.Fatalf("the attempt after %d failures: %v, want slowed down for %v", accountstest.SlowDownAfter, err, accountstest.SlowDownFirst)
	}
	if got := users.EventTypes(t, acc.ID); len(got) != accountstest.SlowDownAfter || len(users.SessionsOf(t, acc.ID)) != 0 {
		t.Errorf("events %q and sessions after a slowed attempt, want %d failures only", got, accountstest.SlowDownAfter)
	}
	env.Clock.Advance(accountstest.SlowDownFirst)
	users.NewSession(t, acc, action.Web)

	unknown := accountstest.NewEmail()
	for range accountstest.SlowDownAfter {
		if _, err := users.Login(t.Context(), unknown, accountstest.Password, o); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("an unknown address: %v", err)
		}
	}
	if _, err := users.Login(t.Context(), unknown, accountstest.Password, o); !errors.As(err, &slowed) {
		t.Errorf("the attempt after %d on an unknown address: %v, want slowed down", accountstest.SlowDownAfter, err)
	}

	inactive := users.NewAccount(t)
	if _, err := users.Management.SetActive(t.Context(), inactive.ID, false, accounts.Actor{}); err != nil {
		t.Fatal(err)
	}
	for range accountstest.SlowDownAfter + 1 {
		if _, err := users.Login(t.Context(), inactive.Email, accountstest.Password, o); !errors.Is(err, accounts.ErrInactive) {
			t.Fatalf("an inactive account's right password: %v, want ErrInactive and no slow-down", err)
		}
	}
}

// TestLoginDeviceTrust: a login hands out a device value the account then
// trusts: presented again it is kept, while a value the account never
// handed out is replaced; and the trusted device is not slowed down by
// the failures of others from its own address.
func TestLoginDeviceTrust(t *testing.T) {
	env := newEnv(t)
	users := env.Users
	acc := users.NewAccount(t)
	o := accountstest.Origin(action.Web)
	first, err := users.Login(t.Context(), acc.Email, accountstest.Password, o)
	if err != nil || first.Device == "" {
		t.Fatalf("first login: %+v, %v", first, err)
	}
	o.Device = first.Device
	if again, err := users.Login(t.Context(), acc.Email, accountstest.Password, o); err != nil || again.Device != first.Device {
		t.Errorf("the trusted device presented: %+v, %v; want it kept", again, err)
	}
	planted := accountstest.Origin(action.Web)
	planted.Device = ratelimit.NewDevice() // well formed, never handed out
	if other, err := users.Login(t.Context(), acc.Email, accountstest.Password, planted); err != nil || other.Device == planted.Device || other.Device == "" {
		t.Errorf("a device the account never trusted: %+v, %v; want a new value", other, err)
	}
	stranger := accountstest.Origin(action.Web) // the same address, no device
	for range accountstest.SlowDownAfter {
		if _, err := users.Login(t.Context(), acc.Email, "Wrong-password-1", stranger); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatal(err)
		}
	}
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, stranger); !errors.Is(err, accounts.ErrSlowedDown) {
		t.Fatalf("the stranger after %d failures: %v, want slowed down", accountstest.SlowDownAfter, err)
	}
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, o); err != nil {
		t.Errorf("the trusted device from the same address: %v, want a login", err)
	}
}

// TestLoginOwesTheSecondFactor: a password login of a user (web or app,
// first step of API version 1 or 2) or of an admin with a confirmed second
// factor stops at *MFARequiredError: a 64-hex handle, the methods, the
// challenge's lifetime, and nothing changed of the owner but one challenge
// more, stored as the handle's SHA-256 with the first factor, the client
// and the version the second step answers in. A wrong password changes
// nothing, not even the challenges.
func TestLoginOwesTheSecondFactor(t *testing.T) {
	env := newEnv(t)
	type trace struct{ sessions, loginCount, logins, challenges int }
	traceOf := func(svc *accountstest.Service, acc *models.Account) trace {
		t.Helper()
		tr := trace{sessions: len(svc.SessionsOf(t, acc.ID)), loginCount: int(svc.Reload(t, acc.ID).LoginCount)}
		for _, typ := range svc.EventTypes(t, acc.ID) {
			if typ == models.EventLogin {
				tr.logins++
			}
		}
		if err := env.DB.GetContext(t.Context(), &tr.challenges, `SELECT count(*) FROM login_challenges WHERE owner_type = $1 AND owner_id = $2`,
			string(svc.Kind.Type), acc.ID); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, svc := range []*accountstest.Service{env.Users, env.Admins} {
		acc, iss := svc.LoggedIn(t, action.Web)
		env.WithTOTP(t, svc, acc, iss)
		for _, client := range []action.Client{action.Web, action.App} {
			for _, version := range []int{1, 2} {
				name := fmt.Sprintf("%s/%s/v%d", svc.Kind.Type, client, version)
				o := accountstest.Origin(client)
				o.Version = version
				before := traceOf(svc, acc)
				_, err := svc.Login(t.Context(), acc.Email, accountstest.Password, o)
				var mfa *accounts.MFARequiredError
				if !errors.As(err, &mfa) || !auth.WellFormedOpaqueToken(mfa.Token) || !slices.Equal(mfa.Methods, []string{accounts.FactorTOTP, accounts.FactorRecoveryCode}) ||
					mfa.ExpiresIn != svc.MFA.ChallengeTTL {
					t.Fatalf("%s: %v (%+v), want MFARequiredError with a handle, methods [totp recovery_code], expiring in %v", name, err, mfa, svc.MFA.ChallengeTTL)
				}
				want := before
				want.challenges++
				if after := traceOf(svc, acc); after != want {
					t.Errorf("%s: after the first step %+v, before %+v: want one challenge more and nothing else", name, after, before)
				}
				var ch struct {
					FirstFactor string `db:"first_factor"`
					Client      string `db:"client"`
					Version     int    `db:"response_version"`
				}
				if err := env.DB.GetContext(t.Context(), &ch, `SELECT first_factor, client, response_version FROM login_challenges
					WHERE token_hash = $1 AND owner_id = $2 AND used_at IS NULL AND attempts = 0`, auth.HashOpaqueToken(mfa.Token), acc.ID); err != nil {
					t.Fatalf("%s: the challenge is not stored as the handle's SHA-256: %v", name, err)
				}
				if ch.FirstFactor != models.MethodPassword || ch.Client != string(client) || ch.Version != version {
					t.Errorf("%s: challenge %+v, want pwd, %s, version %d", name, ch, client, version)
				}
			}
		}
		before := traceOf(svc, acc)
		if _, err := svc.Login(t.Context(), acc.Email, accountstest.Password+"x", accountstest.Origin(action.Web)); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Errorf("%s: a wrong password: %v, want ErrInvalidCredentials", svc.Kind.Type, err)
		}
		if after := traceOf(svc, acc); after != before {
			t.Errorf("%s: a wrong password changed %+v into %+v", svc.Kind.Type, before, after)
		}
	}
}
