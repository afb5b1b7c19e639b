package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/models"
)

// TestOAuthInvalidUTF8FreeTextRefused: a state or nonce that is not UTF-8
// text is invalid_request (a redirect for an admin client, the error page
// for an unverified one), never a server error.
func TestOAuthInvalidUTF8FreeTextRefused(t *testing.T) {
	s := startOAuthServer(t)
	admin, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	dynamic, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, source: models.OAuthClientDynamic})
	b := s.browser()
	_, challenge := pkce()
	for _, name := range []string{"state", "nonce"} {
		params := codeParams(admin, "https://app.example/cb", challenge)
		params.Set(name, "a\xffb")
		res, body := b.get(t, s.authorizeURL(params))
		loc, _ := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != http.StatusFound || loc == nil || loc.Query().Get("error") != "invalid_request" ||
			!strings.HasPrefix(loc.String(), "https://app.example/cb?") {
			t.Errorf("admin client, %s not UTF-8: %d %q %.100s", name, res.StatusCode, res.Header.Get("Location"), body)
		}
		params.Set("client_id", dynamic)
		res, body = b.get(t, s.authorizeURL(params), "Accept", "application/json")
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"invalid_request"`) {
			t.Errorf("dynamic client, %s not UTF-8: %d %.100s", name, res.StatusCode, body)
		}
	}
}

// TestOAuthErrorDescriptionsNeverEchoInput: the error redirects of an
// admin client never quote what the request sent (a scope, a prompt or a
// resource value, a parameter name): error_description stays within
// %x20-21 / %x23-5B / %x5D-7E (RFC 6749 §4.1.2.1), whatever the input.
func TestOAuthErrorDescriptionsNeverEchoInput(t *testing.T) {
	s := startOAuthServer(t)
	admin, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	_, challenge := pkce()
	for _, bad := range []string{"\x00", "\xff\xfe", "é\"\\<x>", "a\nb"} {
		for _, name := range []string{"scope", "prompt", "resource"} {
			params := codeParams(admin, "https://app.example/cb", challenge)
			params.Set(name, bad)
			res, body := b.get(t, s.authorizeURL(params))
			loc, err := url.Parse(res.Header.Get("Location"))
			if res.StatusCode != http.StatusFound || err != nil || loc.Query().Get("error") == "" {
				t.Errorf("%s %q: %d %q %.100s", name, bad, res.StatusCode, res.Header.Get("Location"), body)
				continue
			}
			d := loc.Query().Get("error_description")
			for i := 0; i < len(d); i++ {
				if c := d[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
					t.Errorf("%s %q: error_description %q holds byte %#x", name, bad, d, c)
					break
				}
			}
			if strings.Contains(d, bad) {
				t.Errorf("%s %q: error_description %q echoes the value", name, bad, d)
			}
		}
		params := codeParams(admin, "https://app.example/cb", challenge)
		params[bad] = []string{"1", "2"}
		res, _ := b.get(t, s.authorizeURL(params))
		loc, _ := url.Parse(res.Header.Get("Location"))
		if d := loc.Query().Get("error_description"); res.StatusCode != http.StatusFound || d == "" || strings.Contains(d, bad) {
			t.Errorf("parameter %q given twice: %d %q", bad, res.StatusCode, d)
		}
	}
}

// TestOAuthIntrospectClientTokenOfDisabledClient: a client_credentials
// token (no session) is inactive at introspection once its client is
// disabled, and still refused at userinfo.
func TestOAuthIntrospectClientTokenOfDisabledClient(t *testing.T) {
	s := startOAuthServer(t)
	scope := "openid"
	cc, ccSecret := s.addClient(t, oauthClientSpec{grants: []string{"client_credentials"}, scope: &scope})
	rs, rsSecret := s.addClient(t, oauthClientSpec{grants: []string{"client_credentials"}, scope: &scope})
	st, out := s.tokenCall(t, cc, ccSecret, url.Values{"grant_type": {"client_credentials"}})
	if st != 200 {
		t.Fatalf("client_credentials: %d %v", st, out)
	}
	at := out["access_token"].(string)
	if st, out := s.protocolPost(t, "/oauth2/introspect", rs, rsSecret, url.Values{"token": {at}}); st != 200 || out["active"] != true || out["sub"] != cc {
		t.Fatalf("introspect while the client is enabled: %d %v", st, out)
	}
	if _, err := (models.OAuthClientStore{}).Disable(t.Context(), s.db, cc, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	if st, out := s.protocolPost(t, "/oauth2/introspect", rs, rsSecret, url.Values{"token": {at}}); st != 200 || len(out) != 1 || out["active"] != false {
		t.Fatalf("introspect after the client was disabled: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, at); st != http.StatusUnauthorized {
		t.Fatalf("userinfo with a client's token: %d", st)
	}
}

// TestOAuthRevokeAppRacingAnExchange: revokeapp (user, then consent, then
// codes) and the exchange of one of the app's codes, caught at once, end
// without a deadlock: revokeapp succeeds and the exchange is
// invalid_grant, never a 500.
func TestOAuthRevokeAppRacingAnExchange(t *testing.T) {
	s := startOAuthServer(t)
	scope := "openid profile"
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, scope: &scope})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge))
	// A transaction holding the consent row stops revokeapp right after it
	// locked the user, so that the exchange arrives while it holds it.
	hold, err := s.db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback() }()
	if _, err := hold.Exec(`SELECT 1 FROM oauth_consents WHERE user_id = $1 FOR UPDATE`, u.id); err != nil {
		t.Fatal(err)
	}
	revoked := make(chan *apiResponse, 1)
	go func() {
		revoked <- b.call(http.MethodPost, "/v1/users/oauth/revokeapp", map[string]any{"clientId": clientID}, u.auth()...)
	}()
	poll.Until(t, 10*time.Second, "revokeapp waiting for the consent row", func() bool { return lockWaiters(t, s.db) == 1 })
	type answer struct {
		status int
		body   map[string]any
	}
	exchanged := make(chan answer, 1)
	go func() {
		st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
		exchanged <- answer{st, out}
	}()
	poll.Until(t, 10*time.Second, "the exchange waiting too", func() bool { return lockWaiters(t, s.db) == 2 })
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	(<-revoked).want(t, 200, "")
	if a := <-exchanged; a.status != 400 || a.body["error"] != "invalid_grant" {
		t.Fatalf("the exchange racing revokeapp: %d %v", a.status, a.body)
	}
}

// TestOAuthDisableRacingAnExchange: a client disabled while one of its
// codes is being exchanged leaves no live session of it: the exchange
// either is refused or opens a session the disabling ends. A trigger of
// the test's database holds the exchange after it spent the code, until
// the disabling is under way.
func TestOAuthDisableRacingAnExchange(t *testing.T) {
	s := startOAuthServer(t)
	scope := "openid profile"
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}, scope: &scope})
	b := s.browser()
	u := loginUser(t, b)
	verifier, challenge := pkce()
	code := s.codeFor(t, b, u, codeParams(clientID, "https://app.example/cb", challenge))
	if _, err := s.db.Exec(`CREATE FUNCTION test_hold_grant() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$;
		CREATE TRIGGER test_hold_grant BEFORE INSERT ON oauth_grants FOR EACH ROW EXECUTE FUNCTION test_hold_grant()`); err != nil {
		t.Fatal(err)
	}
	// The hold has a pool of its own: the disabling and the polling use
	// both connections of s.db.
	hold, err := s.testServer.db().BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback() }()
	if _, err := hold.Exec(`SELECT pg_advisory_xact_lock(4242)`); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status int
		body   map[string]any
	}
	exchanged := make(chan answer, 1)
	go func() {
		st, out := s.tokenCall(t, clientID, secret, url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}})
		exchanged <- answer{st, out}
	}()
	poll.Until(t, 10*time.Second, "the exchange holding at its grant", func() bool { return lockWaiters(t, s.db) == 1 })
	disabled := make(chan error, 1)
	go func() {
		_, err := (models.OAuthClientStore{}).Disable(context.WithoutCancel(t.Context()), s.db, clientID, time.Now().UTC())
		disabled <- err
	}()
	poll.Until(t, 10*time.Second, "the disabling waiting too", func() bool { return lockWaiters(t, s.db) == 2 })
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-disabled; err != nil {
		t.Fatal(err)
	}
	a := <-exchanged
	var live int
	if err := s.db.Get(&live, `SELECT count(*) FROM user_sessions s JOIN oauth_grants g ON g.session_id = s.chain_id
		WHERE g.client_id = $1 AND s.revoked_at IS NULL`, clientID); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Fatalf("%d live sessions of the disabled client (exchange %d)", live, a.status)
	}
	if a.status == 200 {
		if st, _, _ := s.userinfo(t, a.body["access_token"].(string)); st != http.StatusUnauthorized {
			t.Fatalf("userinfo with a token of the disabled client: %d", st)
		}
	} else if a.body["error"] != "invalid_client" && a.body["error"] != "invalid_grant" {
		t.Fatalf("the exchange racing the disabling: %d %v", a.status, a.body)
	}
}

// TestOAuthLeakedRequestIDWithForgedCookie: a requestId learned from the
// interaction URL (history, proxy logs) is no use with a cookie forged
// from it: request, approve and deny refuse oauth-request=<requestId> and
// <requestId>.<wrong secret>, so an attacker cannot approve the victim's
// request with their own account (login CSRF); the victim's own browser
// then approves. The interaction page with its requestId is kept by no
// cache.
func TestOAuthLeakedRequestIDWithForgedCookie(t *testing.T) {
	s := startOAuthServer(t)
	clientID, _ := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	victim := s.browser()
	v := loginUser(t, victim)
	_, challenge := pkce()
	id := s.startAuthorization(t, victim, codeParams(clientID, "https://app.example/cb", challenge))
	attacker := s.browser()
	a := loginUser(t, attacker)
	for _, cookie := range []string{id, id + ".", id + ".wrong", id + "." + strings.Repeat("A", 43)} {
		for _, path := range []string{"/v1/users/oauth/request", "/v1/users/oauth/approve", "/v1/users/oauth/deny"} {
			attacker.call(http.MethodPost, path, map[string]any{"requestId": id},
				append(a.auth(), "Cookie", "oauth-request="+cookie)...).
				want(t, 400, "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST")
		}
	}
	res, _ := victim.get(t, s.issuer+"/demo?oauth_request="+id)
	if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("the interaction page: %d Cache-Control %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	q := approve(t, victim, v, id)
	if q.Get("code") == "" || q.Get("state") != "st-1" {
		t.Fatalf("the victim's approval redirects with %v", q)
	}
}

// refreshFrom posts a refresh_token grant of a confidential client as
// sent from the client address ip (X-Forwarded-For, the server trusting
// its loopback proxy).
func (s *oauthServer) refreshFrom(t *testing.T, ip, clientID, secret, refresh string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
	req, _ := http.NewRequest(http.MethodPost, s.issuer+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", ip)
	req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// TestOAuthRefreshGraceOnlyFromTheRotatingAddress: a rotated refresh
// token presented again within the grace from the address of the rotation
// is invalid_grant and nothing more (parallel refreshes); from another
// address it is a replay at once: a thief who refreshed first cannot hide
// behind the grace, and that OAuth session ends with refresh_theft.
func TestOAuthRefreshGraceOnlyFromTheRotatingAddress(t *testing.T) {
	s := startOAuthServer(t, "TRUST_PROXY=true")
	clientID, secret := s.addClient(t, oauthClientSpec{redirectURIs: []string{"https://app.example/cb"}})
	b := s.browser()
	u := loginUser(t, b)
	tok := s.signIn(t, b, u, clientID, secret)
	stolen := tok["refresh_token"].(string)
	st, thief := s.refreshFrom(t, "203.0.113.66", clientID, secret, stolen)
	if st != 200 {
		t.Fatalf("the first refresh: %d %v", st, thief)
	}
	if st, out := s.refreshFrom(t, "203.0.113.66", clientID, secret, stolen); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("a replay from the rotation's address: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, thief["access_token"].(string)); st != 200 {
		t.Fatalf("the session after a replay within the grace from the same address: %d", st)
	}
	if st, out := s.refreshFrom(t, "198.51.100.7", clientID, secret, stolen); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("a replay from another address: %d %v", st, out)
	}
	if st, _, _ := s.userinfo(t, thief["access_token"].(string)); st != http.StatusUnauthorized {
		t.Fatalf("the session after a replay from another address: %d", st)
	}
	if st, out := s.refreshFrom(t, "203.0.113.66", clientID, secret, thief["refresh_token"].(string)); st != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the rotated token after the theft response: %d %v", st, out)
	}
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'refresh_theft'`, u.id); err != nil || n != 1 {
		t.Fatalf("refresh_theft events: %d %v", n, err)
	}
}
