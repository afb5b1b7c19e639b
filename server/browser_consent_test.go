package main

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/models"
)

// TestBrowserOAuthConsent: the consent screen of "Sign in with actionkit"
// in Chromium (scenario consent), with a relying party on a loopback
// address as the clients' redirect URI. A request id without its cookie
// is explained, without buttons; logged out, prompt=none answers
// login_required without showing anything. Logged out, the page names the
// application and shows the log-in form; Deny sends the browser back with
// access_denied, state and iss. After logging in on the page (password,
// then the second step with the user's TOTP code) it shows the
// scopes in words and Allow sends back a code that the token endpoint
// exchanges. The admin client's next sign-in goes straight through; with
// prompt=login the re-authentication dialog asks for the password first.
// A dynamic public client on a loopback redirect shows "unverified", its
// client id and its redirect URI's host, no image, and is asked again
// although it holds a consent; with prompt=none it gets consent_required.
// "Connected apps" lists both applications, the session list names the
// admin client's session, and disconnecting it (after a confirmation)
// ends its session: its access token is refused by userinfo.
func TestBrowserOAuthConsent(t *testing.T) {
	// The server's clock is the real time moved by the test, so that the
	// user's TOTP code at login is not the enrolment's.
	clock := &testclock.Offset{}
	port := freePort(t)
	s := &oauthServer{issuer: "http://127.0.0.1:" + port}
	s.testServer = startServerClock(t, testEnv(t, "OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PORT="+port,
		"PUBLIC_URL="+s.issuer), clock.Now, "api")
	s.URL, s.db = s.issuer, s.testServer.db()
	rp := newRelyingParty(t)
	loopback := []string{"http://127.0.0.1/cb"}
	admin, secret := s.addClient(t, oauthClientSpec{redirectURIs: loopback})
	dynamic, _ := s.addClient(t, oauthClientSpec{redirectURIs: loopback, method: "none", source: models.OAuthClientDynamic})
	adminName, dynamicName := "Acme Notes", "notes-cli"
	for id, name := range map[string]string{admin: adminName, dynamic: dynamicName} {
		if _, err := s.db.ExecContext(t.Context(), `UPDATE oauth_clients SET name = $2 WHERE client_id = $1`, id, name); err != nil {
			t.Fatal(err)
		}
	}
	u := enroll(t, register(t, s.client(), "web"), testclock.At(clock.Now()), "user")
	verifiers := map[string]string{}
	clients := map[string]string{}
	var access []string
	var docsImages []string
	if os.Getenv("ACTIONKIT_UPDATE_SCREENSHOT") == "1" {
		dir, err := filepath.Abs("../docs/images")
		if err != nil {
			t.Fatal(err)
		}
		docsImages = []string{"ACTIONKIT_DOCS_IMAGES=" + dir}
	}
	res := browsertest.Run(t, s.issuer, "consent", browsertest.Options{Artifacts: artifactsDir(t), Timeout: 3 * time.Minute,
		Env: append([]string{"CONSENT_EMAIL=" + u.email}, docsImages...),
		Checkpoint: func(m browsertest.Message) any {
			switch m.Name {
			case "authorize":
				id := admin
				if m.Str("client") == "dynamic" {
					id = dynamic
				}
				verifier, challenge := pkce()
				state := m.Str("state")
				verifiers[state], clients[state] = verifier, id
				p := codeParams(id, rp.callback, challenge, "scope", "openid profile email offline_access", "nonce", "n-"+state)
				p.Set("state", state)
				if prompt := m.Str("prompt"); prompt != "" {
					p.Set("prompt", prompt)
				}
				return map[string]any{"url": s.authorizeURL(p)}
			case "callback":
				var q url.Values
				select {
				case q = <-rp.queries:
				case <-time.After(10 * time.Second):
					t.Fatalf("callback %s: the relying party got nothing", m.Str("state"))
				}
				state, want := m.Str("state"), m.Str("want")
				if q.Get("state") != state || q.Get("iss") != s.issuer {
					t.Fatalf("callback %s: %v", state, q)
				}
				if want != "code" {
					if q.Get("error") != want || q.Has("code") {
						t.Fatalf("callback %s: %v, want error %s", state, q, want)
					}
					return map[string]any{"ok": true}
				}
				id, sec := clients[state], ""
				if id == admin {
					sec = secret
				}
				st, out := s.tokenCall(t, id, sec, url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
					"redirect_uri": {rp.callback}, "code_verifier": {verifiers[state]}})
				if st != 200 {
					t.Fatalf("callback %s: the exchange: %d %v", state, st, out)
				}
				if id == admin {
					access = append(access, out["access_token"].(string))
				}
				return map[string]any{"ok": true}
			case "totp":
				clock.Advance(time.Minute) // the enrolment's code is spent
				return map[string]any{"code": totpAt(t, u.secret, clock.Now())}
			case "clients":
				return map[string]any{"admin": admin, "dynamic": dynamic}
			case "revoked":
				for i, at := range access {
					if st, _, _ := s.userinfo(t, at); st != 401 {
						t.Errorf("the disconnected app's access token %d: userinfo %d, want 401", i, st)
					}
				}
			}
			return map[string]any{}
		}})["consent"]

	if inv := obj(res.Data, "invalid"); inv["code"] != "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST" || inv["buttons"] != float64(0) ||
		!strings.Contains(inv["text"].(string), "another browser") {
		t.Errorf("an unknown request: %v, want it explained, no button", inv)
	}
	out := obj(res.Data, "loggedOut")
	if out["visible"] != true || out["name"] != adminName || out["verified"] != true || out["unverified"] != false ||
		out["login"] != true || out["approve"] != false || out["deny"] != true || len(strs(out["others"])) != 0 ||
		!strings.HasPrefix(out["title"].(string), "Log in to continue to "+adminName) {
		t.Errorf("logged out, the page shows %v; want the verified app's name, the log-in form and Deny only", out)
	}
	asked := obj(res.Data, "asked")
	if !slices.Equal(strs(asked["scopes"]), []string{"openid", "profile", "email", "offline_access"}) || asked["approve"] != true ||
		asked["login"] != false || asked["warning"] != false || asked["clientHost"] != "" || len(strs(asked["others"])) != 0 {
		t.Errorf("logged in, the page shows %v", asked)
	}
	if words := strs(asked["words"]); len(words) != 4 || !strings.Contains(words[2], "e-mail address") || !strings.Contains(words[3], "until you disconnect") {
		t.Errorf("the scopes in words: %v", words)
	}
	if m := res.Data["reauthMethods"]; m != "totp recovery_code password" {
		t.Errorf("prompt=login: the dialog offers %v, want the code, a recovery code and the password", m)
	}
	rpHost := strings.TrimPrefix(rp.callback[:strings.LastIndex(rp.callback, "/")], "http://")
	for _, k := range []string{"unverified", "again"} {
		un := obj(res.Data, k)
		if un["name"] != dynamicName || un["unverified"] != true || un["verified"] != false || un["warning"] != true ||
			un["clientHost"] != dynamic || un["redirectHost"] != rpHost || un["images"] != float64(0) || un["approve"] != true ||
			un["title"] != "An unverified application wants to use your account" {
			t.Errorf("%s: the unverified client shows %v; want its hosts (%s, %s), the warning, no image", k, un, dynamic, rpHost)
		}
	}
	before := obj(res.Data, "before")
	if apps := strs(before["apps"]); len(apps) != 2 || !slices.Contains(apps, admin) || !slices.Contains(apps, dynamic) {
		t.Errorf("connected apps %v", before)
	}
	if sessions := strs(before["sessions"]); len(sessions) == 0 || !strings.HasPrefix(sessions[0], adminName) {
		t.Errorf("the session list names the app's sessions %v, want %q", sessions, adminName)
	}
	if res.Data["confirming"] != true || !strings.Contains(res.Str("result"), "Disconnected "+adminName) {
		t.Errorf("disconnecting: confirmation shown %v, result %q", res.Data["confirming"], res.Str("result"))
	}
	var consents int
	if err := s.db.GetContext(t.Context(), &consents, `SELECT count(*) FROM oauth_consents WHERE user_id = $1`, u.id); err != nil || consents != 1 {
		t.Errorf("consents after disconnecting one of two: %d (%v)", consents, err)
	}
}
