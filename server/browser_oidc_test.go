package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/oidctest"
	"github.com/actionkit/actionkit/internal/testclock"
)

// oidcFragmentRe is where the provider's sign-in lands: a one-time result
// code, and nothing else, in the fragment.
var oidcFragmentRe = regexp.MustCompile(`^#oidc=[0-9a-f]{64}$`)

// TestBrowserIdentityProvider: a real OpenID provider (internal/oidctest)
// and a server configured with it twice, as "idp" and "trusted". From the
// demo page: a sign-in cancelled at the provider comes back with
// #error=<CODE>, explained on the log-in form; the provider's button, its
// own login and consent pages, back on the page logged in (the fragment's
// one-time code gone from the address bar) with a federated session of the
// provider; the "Connected accounts" panel refuses to disconnect the
// account's only identity, connects the second provider
// (#linked=trusted), disconnects the first; with a passkey added, signing
// in with the provider ends in the second step, finished with the
// passkey; in a session older than REAUTH_MAX_AGE the last identity is
// disconnected after confirming with the passkey, and the passkey, now
// the last way to sign in, is refused removal.
func TestBrowserIdentityProvider(t *testing.T) {
	env, origin := localhostEnv(t)
	p := oidctest.Start(t, oidctest.Options{RedirectURI: origin + "/v1/users/oidc/callback"})
	for k, v := range map[string]string{"OIDC_PROVIDERS": "idp,trusted",
		"OIDC_IDP_ISSUER": p.Issuer, "OIDC_IDP_CLIENT_ID": p.ClientID, "OIDC_IDP_CLIENT_SECRET": p.ClientSecret, "OIDC_IDP_NAME": "Test IdP",
		"OIDC_TRUSTED_ISSUER": p.Issuer, "OIDC_TRUSTED_CLIENT_ID": p.ClientID, "OIDC_TRUSTED_CLIENT_SECRET": p.ClientSecret,
		"OIDC_TRUSTED_NAME": "Trusted IdP", "OIDC_TRUSTED_TRUST_EMAIL": "true"} {
		env[k] = v
	}
	const maxAge = 2 * time.Minute
	env["REAUTH_MAX_AGE"] = maxAge.String()
	clock := &testclock.Offset{}
	s := startServerClock(t, env, clock.Now, "api")
	email := uniqueEmail()
	sub := newSub()
	p.SetAccount(sub, map[string]any{"email": email, "email_verified": true, "given_name": "Ada"})
	res := browsertest.Run(t, origin, "oidc", browsertest.Options{Artifacts: artifactsDir(t), Timeout: 3 * time.Minute,
		Checkpoint: func(m browsertest.Message) any {
			if m.Name == "age" {
				clock.Advance(maxAge + time.Second)
			}
			return map[string]any{"sub": sub}
		}})["oidc"]
	userID := res.Str("userId")

	cancel := obj(res.Data, "cancel")
	if !slices.Equal(strs(cancel["pages"]), []string{"login"}) || cancel["fragment"] != "#error=USER_BAD_REQUEST_OIDC_PROVIDER_ERROR" ||
		cancel["hash"] != "" || cancel["state"] != "out" || cancel["code"] != "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR" ||
		!strings.Contains(cancel["text"].(string), "did not confirm who you are") {
		t.Errorf("cancelled at the provider: %v, want the error explained on the log-in form, the fragment gone", cancel)
	}
	login := obj(res.Data, "login")
	if buttons := strs(login["buttons"]); !slices.Equal(buttons, []string{"Sign in with Test IdP", "Sign in with Trusted IdP"}) {
		t.Errorf("the log-in form's provider buttons: %v", buttons)
	}
	if pages := strs(login["pages"]); !slices.Equal(pages, []string{"login", "consent"}) {
		t.Errorf("the provider's pages answered: %v, want its login then its consent", pages)
	}
	landing := obj(login, "landing")
	if !oidcFragmentRe.MatchString(login["fragment"].(string)) || landing["hash"] != "" || landing["oidc"] != "done" || landing["noPassword"] != true ||
		login["methods"] != "fed" || login["provider"] != "idp" || login["how"] != "signed in with idp" {
		t.Errorf("after the provider: the page %v; want it back with only a one-time code, logged in through idp, the fragment gone", login)
	}
	if got := authOf(t, s, login["sid"].(string)); got.Methods != "fed" || got.AAL != 1 || got.Provider == nil || *got.Provider != "idp" {
		t.Errorf("the session: %+v, want fed, aal 1, provider idp", got)
	}
	second := obj(res.Data, "secondStep")
	step := obj(second, "step")
	got := authOf(t, s, second["sid"].(string))
	if !oidcFragmentRe.MatchString(second["fragment"].(string)) || step["methods"] != "webauthn" || step["token"] != nil || step["hash"] != "" ||
		got.Methods != "fed hwk" || got.AAL != 2 || got.Provider == nil || *got.Provider != "trusted" || second["methods"] != "fed hwk" {
		t.Errorf("signing in with the provider once a passkey is the second factor: %v, session %+v; want the second step, then fed and hwk at aal 2", second, got)
	}
	var account struct {
		Email       string `db:"email"`
		HasPassword bool   `db:"has_password"`
	}
	if err := s.db().GetContext(t.Context(), &account, `SELECT email, password IS NOT NULL AS has_password FROM users WHERE id = $1`, userID); err != nil ||
		account.Email != email || account.HasPassword {
		t.Errorf("the account the provider's sign-in made: %+v (%v), want %s without a password", account, err, email)
	}

	first := obj(res.Data, "first")
	if !slices.Equal(strs(first["providers"]), []string{"idp"}) || !slices.Contains(strs(first["emails"]), email) ||
		!slices.Equal(strs(first["connect"]), []string{"idp", "trusted"}) {
		t.Errorf("the connected accounts panel after sign-in: %v", first)
	}
	for name, code := range map[string]string{"lastIdentity": "USER_BAD_REQUEST_LAST_SIGNIN_METHOD", "lastPasskey": "USER_BAD_REQUEST_LAST_SIGNIN_METHOD"} {
		if r := obj(res.Data, name); r["code"] != code || !strings.Contains(r["text"].(string), "last way to sign in") {
			t.Errorf("%s: the page showed %v, want %s in the page's words", name, r, code)
		}
	}
	linked := obj(res.Data, "linked")
	if !slices.Equal(strs(linked["providers"]), []string{"idp", "trusted"}) || linked["fragment"] != "#linked=trusted" || linked["hash"] != "" ||
		!strings.Contains(linked["result"].(string), "Trusted IdP") {
		t.Errorf("after connecting trusted: %v", linked)
	}
	if u := obj(res.Data, "unlinked"); u["dialog"] != nil || !strings.Contains(u["result"].(string), "Test IdP") {
		t.Errorf("disconnecting idp in a fresh session: %v, want no dialog", u)
	}
	if w := obj(res.Data, "withKey"); obj(w, "dialog")["methods"] != "webauthn" || obj(w, "dialog")["chosen"] != "webauthn" {
		t.Errorf("disconnecting the last identity once a passkey is the second factor: %v, want the dialog with the passkey", w)
	}
	db := s.db()
	var identitiesLeft, passkeys int
	if err := db.GetContext(t.Context(), &identitiesLeft, `SELECT count(*) FROM user_identities WHERE user_id = $1`, userID); err != nil || identitiesLeft != 0 {
		t.Errorf("%d identities left (%v), want 0", identitiesLeft, err)
	}
	if err := db.GetContext(t.Context(), &passkeys, `SELECT count(*) FROM webauthn_credentials WHERE owner_id = $1`, userID); err != nil || passkeys != 1 {
		t.Errorf("%d passkeys (%v), want the one kept", passkeys, err)
	}
	for typ, want := range map[string]int{"identity_linked": 1, "identity_unlinked": 2, "reauthenticated": 1, "passkey_added": 1, "passkey_removed": 0} {
		if n := eventsOf(t, db, userID, typ); n != want {
			t.Errorf("%d %s events, want %d", n, typ, want)
		}
	}
}
