package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/examples/mobile/appclient"
	"github.com/actionkit/actionkit/examples/sibling/notes"
)

// TestSiblingServiceAcceptsUserTokens: the sibling example serves its own
// actions to a token issued by the bundled server, and stops doing so
// after a logout-all there.
func TestSiblingServiceAcceptsUserTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	h, err := notes.New(notes.Config{DB: s.db(), Secret: []byte(testSecret), Issuer: "actionkit"})
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
	u.c.call(http.MethodPost, "/v1/users/logoutall", nil, u.auth()...).want(t, 200, "")
	c.call(http.MethodGet, "/v1/notes/list", nil, u.auth()...).want(t, 401, "UNAUTHORIZED")
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
