package main

import (
	"net/http"
	"net/url"
	"testing"
)

// TestCookieActionsRefuseNavigationsFromOtherOrigins: a GET or HEAD of an
// action that sets or reads the refresh cookie is what a top-level
// navigation (a link, a redirect, a form with method GET) sends, with no
// Origin header; from a sibling subdomain its Sec-Fetch-Site is
// same-site, and it would log the browser into the attacker's account. So
// GET and HEAD pass only when Sec-Fetch-Site is absent, same-origin or
// none; POST keeps its rule (same-site allowed).
func TestCookieActionsRefuseNavigationsFromOtherOrigins(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "PUBLIC_URL=https://app.example.com")
	s := startServer(t, env, "api")
	u := register(t, s.client(), "web")
	createAdmin(t, env, "nav-admin@example.com")
	creds := "?" + url.Values{"email": {u.email}, "password": {strongPassword}}.Encode()
	adminCreds := "?" + url.Values{"email": {"nav-admin@example.com"}, "password": {strongPassword}}.Encode()
	cookieActions := []struct {
		path   string
		authed bool
	}{
		{"/v1/users/login" + creds, false}, {"/v2/users/login" + creds, false}, {"/v1/admins/login" + adminCreds, false},
		{"/v1/users/register?" + url.Values{"email": {uniqueEmail()}, "password": {strongPassword}}.Encode(), false},
		{"/v1/users/refresh", false}, {"/v1/admins/refresh", false},
		{"/v1/users/logout", true}, {"/v1/users/logoutall", true},
		{"/v1/users/changepassword?" + url.Values{"currentPassword": {strongPassword}, "newPassword": {newPassword}}.Encode(), true},
	}
	for _, a := range cookieActions {
		path := a.path
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, site := range []string{"same-site", "cross-site", "unheard-of"} {
				hdr := []string{"Sec-Fetch-Site", site}
				if a.authed {
					hdr = append(hdr, u.auth()...)
				}
				r := s.client().call(method, path, nil, hdr...)
				if r.Status != 403 || (method == http.MethodGet && r.Body["error"] != "FORBIDDEN") || len(r.Cookies) != 0 {
					t.Errorf("%s %s with Sec-Fetch-Site %s: got %d %s (cookies %v), want 403 FORBIDDEN and no cookie",
						method, path, site, r.Status, r.Raw, r.Header.Values("Set-Cookie"))
				}
			}
		}
	}
	// The same navigation within the origin, typed in the address bar, or
	// from a client that sends no Sec-Fetch-Site, logs in.
	for _, site := range []string{"same-origin", "none", ""} {
		var hdr []string
		if site != "" {
			hdr = []string{"Sec-Fetch-Site", site}
		}
		s.client().call(http.MethodGet, "/v1/users/login"+creds, nil, hdr...).want(t, 201, "")
		s.client().call(http.MethodHead, "/v1/users/login"+creds, nil, hdr...).want(t, 201, "")
	}
	// POST from a sibling subdomain keeps today's rule: allowed.
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
		"Sec-Fetch-Site", "same-site").want(t, 201, "")
	// Actions without the cookie are not concerned.
	s.client().call(http.MethodGet, "/v1/users/read", nil, append([]string{"Sec-Fetch-Site", "same-site"}, u.auth()...)...).want(t, 200, "")
}
