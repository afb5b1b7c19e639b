package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

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
