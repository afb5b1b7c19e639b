package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/examples/mobile/appclient"
	"github.com/actionkit/actionkit/examples/sibling/notes"
	"github.com/actionkit/actionkit/internal/poll"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/tokenforge"
)

// TestSiblingServiceAcceptsUserTokens: the sibling example, holding no
// secret, verifies the EdDSA tokens of the bundled server with its
// published keys (fetched through a proxy that the test takes down), and
// stops accepting a token after a logout-all there. Forged tokens and an
// HS256 token are refused; with the key set unreachable, the cached keys
// go on working and the sibling's log says so.
func TestSiblingServiceAcceptsUserTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "ACCESS_TOKEN_ALG=EdDSA"), "api")
	proxy := newTCPProxy(t, hostOf(t, s.URL))
	logs := &syncbuf.Buffer{}
	var ahead atomic.Int64 // how far the sibling's clock runs ahead
	verifier, err := jwks.New(jwks.Config{
		URL: proxy.replaceHost(s.URL) + jwksPath, Issuer: "actionkit",
		Now:    func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) },
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := notes.New(notes.Config{DB: s.db(), Verifier: verifier})
	if err != nil {
		t.Fatal(err)
	}
	sibling := httptest.NewServer(h)
	defer sibling.Close()
	u := register(t, s.client(), "web")
	c := &client{t: t, base: sibling.URL, http: http.DefaultClient}
	c.call(http.MethodPost, "/v1/notes/add", map[string]any{"text": "  remember the milk "}, u.auth()...).want(t, 201, "")
	list := c.call(http.MethodGet, "/v1/notes/list", nil, u.auth()...).want(t, 200, "")
	if list.str("userId") != u.id || !strings.Contains(list.Raw, `"text":"remember the milk"`) {
		t.Errorf("list = %s", list.Raw)
	}
	c.call(http.MethodGet, "/v1/notes/list", nil).want(t, 401, "UNAUTHORIZED")
	c.call(http.MethodPost, "/v1/notes/add", map[string]any{}, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	c.call(http.MethodPost, "/v1/users/login", nil).want(t, 404, "NOT_FOUND")
	siblingRefuses(t, c, u)

	proxy.down()
	ahead.Store(int64(jwks.DefaultMaxAge)) // the cached set is due: the next token makes the sibling refetch
	c.call(http.MethodGet, "/v1/notes/list", nil, u.auth()...).want(t, 200, "")
	poll.Until(t, 10*time.Second, "the sibling logs the unreachable key set", func() bool {
		return strings.Contains(logs.String(), "verifying with the cached keys")
	})
	c.call(http.MethodGet, "/v1/notes/list", nil, u.auth()...).want(t, 200, "")
	proxy.up()
	ahead.Store(0)

	u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	c.call(http.MethodGet, "/v1/notes/list", nil, u.auth()...).want(t, 401, "UNAUTHORIZED")
}

// siblingRefuses checks that the sibling refuses forged tokens built from
// u's, and an HS256 token signed with the server's secret.
func siblingRefuses(t *testing.T, c *client, u *registered) {
	t.Helper()
	_, kid := tokenKid(u.token)
	x, err := base64.RawURLEncoding.DecodeString(publishedKeys(t, u.c)[kid]["x"].(string))
	if err != nil {
		t.Fatal(err)
	}
	bad := tokenforge.Attacks(u.token, kid, ed25519.PublicKey(x))
	_, claims := tokenforge.Decode(u.token)
	bad["HS256 with the server's secret"] = tokenforge.Forge(tokenforge.Header("HS256", ""), claims, tokenforge.HMAC([]byte(testSecret)))
	for name, token := range bad {
		if r := c.call(http.MethodGet, "/v1/notes/list", nil, "Authorization", "jwt-user "+token); r.Status != 401 {
			t.Errorf("%s: the sibling answered %d %s", name, r.Status, r.Raw)
		}
	}
}

// TestMobileClientFlow runs the mobile example's client: login as an app,
// refresh through the body, read (refreshing once when refused), logout.
func TestMobileClientFlow(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	ctx := context.Background()
	app := &appclient.Client{BaseURL: s.URL, Platform: "android"}
	p, err := app.Login(ctx, u.email, strongPassword)
	if err != nil || p.ID != u.id || len(app.RefreshToken()) != 64 {
		t.Fatalf("login = %+v, %v", p, err)
	}
	first := app.RefreshToken()
	if err := app.Refresh(ctx); err != nil || app.RefreshToken() == first {
		t.Fatalf("refresh: %v", err)
	}
	// Ending the access tokens alone (a token version bump, as after an
	// expiry) makes the read refresh once through the body and retry.
	sqlExec(t, s.db(), `UPDATE users SET token_version = token_version + 1 WHERE id = $1`, u.id)
	before := app.RefreshToken()
	if p, err = app.Profile(ctx); err != nil || p.Email != u.email || app.RefreshToken() == before {
		t.Fatalf("profile = %+v, %v (refreshed: %v)", p, err, app.RefreshToken() != before)
	}
	rows := sessionsOf(t, s.db(), u.id)
	if last := rows[len(rows)-1]; last.Client != "app" || last.Platform != "android" {
		t.Errorf("session = %+v", last)
	}
	if err := app.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	var e *appclient.Error
	if _, err := app.Profile(ctx); !errors.As(err, &e) || e.Code != "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN" {
		t.Errorf("after logout: %v", err)
	}
}
