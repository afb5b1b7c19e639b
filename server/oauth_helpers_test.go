package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// oauthServer is a test server with the OAuth provider on, whose
// PUBLIC_URL (the issuer) is the address it listens on.
type oauthServer struct {
	*testServer
	issuer string
	db     *sqlx.DB
}

// startOAuthServer starts a server with OAUTH_PROVIDER=true, EdDSA access
// tokens and PUBLIC_URL=http://127.0.0.1:<port>.
func startOAuthServer(t *testing.T, overrides ...string) *oauthServer {
	t.Helper()
	return startOAuthServerClock(t, nil, overrides...)
}

// startOAuthServerClock is startOAuthServer with the process's clock.
func startOAuthServerClock(t *testing.T, now func() time.Time, overrides ...string) *oauthServer {
	t.Helper()
	return startOAuthServerRoles(t, now, []string{"api"}, overrides...)
}

// startOAuthServerRoles is startOAuthServerClock with the command line
// args (nil: every role).
func startOAuthServerRoles(t *testing.T, now func() time.Time, args []string, overrides ...string) *oauthServer {
	t.Helper()
	port := freePort(t)
	issuer := "http://127.0.0.1:" + port
	env := testEnv(t, append([]string{"OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PORT=" + port,
		"PUBLIC_URL=" + issuer}, overrides...)...)
	s := startServerClock(t, env, now, args...)
	s.URL = issuer
	return &oauthServer{testServer: s, issuer: issuer, db: s.db()}
}

// oauthClientSpec describes a client to insert.
type oauthClientSpec struct {
	redirectURIs []string
	postLogout   []string
	method       string // token_endpoint_auth_method; "" is client_secret_basic
	grants       []string
	scope        *string
	minAAL       int16
	source       string // "" is admin
}

// addClient inserts a client and returns its id and secret ("" for a
// public client).
func (s *oauthServer) addClient(t testing.TB, spec oauthClientSpec) (string, string) {
	t.Helper()
	if spec.method == "" {
		spec.method = "client_secret_basic"
	}
	if spec.grants == nil {
		spec.grants = []string{"authorization_code", "refresh_token"}
	}
	if spec.minAAL == 0 {
		spec.minAAL = 1
	}
	if spec.source == "" {
		spec.source = models.OAuthClientAdmin
	}
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	id := "ak_" + base64.RawURLEncoding.EncodeToString(raw)
	c := &models.OAuthClient{ID: uuid.Must(uuid.NewV7()), ClientID: id, Name: "App " + id[3:9],
		RedirectURIs: spec.redirectURIs, PostLogoutRedirectURIs: spec.postLogout, GrantTypes: spec.grants, TokenEndpointAuthMethod: spec.method,
		Scope: spec.scope, MinAAL: spec.minAAL, IDTokenAlg: auth.EdDSA, Source: spec.source}
	secret := ""
	if spec.method != "none" {
		sec := make([]byte, 32)
		_, _ = rand.Read(sec)
		secret = base64.RawURLEncoding.EncodeToString(sec)
		h := auth.HashOpaqueToken(secret)
		c.SecretHash = &h
	}
	if _, err := (models.OAuthClientStore{}).Insert(t.Context(), s.db, c, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	return id, secret
}

// browser is a user's browser: a cookie jar shared by an API client and a
// client that does not follow redirects.
type browser struct {
	*client
	raw *http.Client
}

func (s *oauthServer) browser() *browser {
	jar, _ := cookiejar.New(nil)
	c := &client{t: s.t, base: s.issuer, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	raw := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{client: c, raw: raw}
}

// get sends GET u without following a redirect.
func (b *browser) get(t testing.TB, u string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := b.raw.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// pkce returns a fresh verifier and its S256 challenge.
func pkce() (string, string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(v))
	return v, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorizeURL is the authorization request of client with params.
func (s *oauthServer) authorizeURL(params url.Values) string {
	return s.issuer + "/oauth2/authorize?" + params.Encode()
}

// startAuthorization sends the browser to the authorization endpoint and
// returns the requestId of the interaction URL it is sent to.
func (s *oauthServer) startAuthorization(t testing.TB, b *browser, params url.Values) string {
	t.Helper()
	res, body := b.get(t, s.authorizeURL(params))
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.StatusCode, body)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), s.issuer+"/demo?") {
		t.Fatalf("authorize redirects to %q, want the interaction page", res.Header.Get("Location"))
	}
	return loc.Query().Get("oauth_request")
}

// codeParams are the parameters of a code request with PKCE.
func codeParams(clientID, redirectURI, challenge string, extra ...string) url.Values {
	v := url.Values{"client_id": {clientID}, "redirect_uri": {redirectURI}, "response_type": {"code"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Add(extra[i], extra[i+1])
	}
	return v
}

// approve approves a pending request as user and returns the redirect's
// query.
func approve(t testing.TB, b *browser, u *registered, requestID string) url.Values {
	t.Helper()
	r := b.call(http.MethodPost, "/v1/users/oauth/approve", map[string]any{"requestId": requestID}, u.auth()...)
	r.want(t, 200, "")
	to, err := url.Parse(r.str("redirectTo"))
	if err != nil {
		t.Fatal(err)
	}
	return to.Query()
}

// tokenCall posts form to the token endpoint, with Basic credentials when
// secret is set (else client_id in the body), and decodes the answer.
func (s *oauthServer) tokenCall(t testing.TB, clientID, secret string, form url.Values) (int, map[string]any) {
	t.Helper()
	if secret == "" {
		form.Set("client_id", clientID)
	}
	req, _ := http.NewRequest(http.MethodPost, s.issuer+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("token answer Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// userinfo calls userinfo with the access token and returns the status
// and body.
func (s *oauthServer) userinfo(t testing.TB, token string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.issuer+"/oauth2/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out, res.Header
}

// loginUser registers a user, then logs in through /v1/users/login in b.
func loginUser(t testing.TB, b *browser) *registered {
	t.Helper()
	u := register(t, b.client, "web")
	r := b.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword})
	r.want(t, 201, "")
	u.token = r.str("token")
	return u
}

// codeFor runs authorize and approve for u and returns the code.
func (s *oauthServer) codeFor(t testing.TB, b *browser, u *registered, params url.Values) string {
	t.Helper()
	id := s.startAuthorization(t, b, params)
	q := approve(t, b, u, id)
	if q.Get("code") == "" || q.Get("iss") != s.issuer {
		t.Fatalf("approve redirects with %v", q)
	}
	return q.Get("code")
}
