package accounts_test

import (
	"slices"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestSessionAssurance: a registration's session records how it was
// authenticated (pwd, level 1, now, no provider) and signs it into its
// access tokens as amr and auth_time; a refresh keeps it, the successor's
// tokens included; register and login events carry the methods.
func TestSessionAssurance(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	start := env.Clock.Now()
	iss, err := users.Register(t.Context(), accounts.NewAccount{Email: accountstest.NewEmail(), Password: accountstest.Password}, o)
	if err != nil {
		t.Fatal(err)
	}
	acc := iss.Account
	a := iss.Session.Assurance
	if !slices.Equal(a.Methods, []string{models.MethodPassword}) || a.Level != 1 || a.AuthenticatedAt.Before(start) ||
		a.AuthenticatedAt.After(env.Clock.Now()) || a.Provider != nil {
		t.Errorf("assurance %+v: want pwd, level 1, authenticated now, no provider", a)
	}
	claims, err := env.Tokens.Parse(users.Kind.Type, iss.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	authTime := claims.AuthTime
	if !slices.Equal(claims.Methods, []string{models.MethodPassword}) || !authTime.Equal(a.AuthenticatedAt.Truncate(time.Second)) {
		t.Errorf("claims amr %v auth_time %v, want [pwd] and %v", claims.Methods, authTime, a.AuthenticatedAt)
	}
	env.Clock.Advance(time.Minute)
	next, err := users.Refresh(t.Context(), iss.RefreshToken, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := next.Session.Assurance; !slices.Equal(got.Methods, a.Methods) || got.Level != 1 || !got.AuthenticatedAt.Equal(a.AuthenticatedAt) {
		t.Errorf("after a refresh: %+v, want the registration's %+v", got, a)
	}
	if c, err := env.Tokens.Parse(users.Kind.Type, next.AccessToken); err != nil || !c.AuthTime.Equal(authTime) || !slices.Equal(c.Methods, claims.Methods) {
		t.Errorf("after a refresh: claims %+v, %v; want the registration's amr and auth_time", c, err)
	}
	if live := users.Live(t, acc.ID); len(live) != 1 || !live[0].AuthenticatedAt.Equal(a.AuthenticatedAt) || live[0].Level != 1 {
		t.Errorf("the stored session %+v, want the registration's assurance", live)
	}
	users.NewSession(t, acc, action.Web)
	for _, ev := range users.EventsOf(t, acc.ID) {
		if ev.Type != models.EventRegister && ev.Type != models.EventLogin {
			continue
		}
		if m, ok := accountstest.EventData(t, ev)["methods"].([]any); !ok || !slices.Equal(m, []any{models.MethodPassword}) {
			t.Errorf("%s event methods %v, want [pwd]", ev.Type, accountstest.EventData(t, ev)["methods"])
		}
	}
	if types := users.EventTypes(t, acc.ID); !slices.Contains(types, models.EventRegister) || !slices.Contains(types, models.EventLogin) {
		t.Errorf("events %q, want register and login", types)
	}
}
