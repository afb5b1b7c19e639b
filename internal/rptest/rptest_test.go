package rptest_test

import (
	"errors"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/oidctest"
	"github.com/actionkit/actionkit/internal/rptest"
)

// TestAgainstACertifiedProvider: the relying party completes a code flow
// with PKCE against oidc-provider (the provider the federation tests use),
// checking the ID token's nonce, reads userinfo, and reports a replayed
// code as the provider's invalid_grant. It shows the driver itself works
// before it judges actionkit's provider.
func TestAgainstACertifiedProvider(t *testing.T) {
	const redirect = "http://127.0.0.1:9/callback"
	p := oidctest.Start(t, oidctest.Options{RedirectURI: redirect})
	p.SetAccount("alice", map[string]any{"email": "alice@example.com", "email_verified": true})
	rp := rptest.Start(t, rptest.Client{Issuer: p.Issuer, ClientID: p.ClientID, Secret: p.ClientSecret})

	auth, err := rp.Call("authorize", map[string]any{"redirectUri": redirect, "scope": "openid email"})
	if err != nil {
		t.Fatal(err)
	}
	authURL := rptest.Str(auth, "url")
	if !strings.Contains(authURL, "code_challenge_method=S256") || !strings.Contains(authURL, "nonce=") {
		t.Fatalf("authorization URL %s lacks PKCE or a nonce", authURL)
	}
	jar, _ := cookiejar.New(nil)
	callback, err := p.SignIn(&http.Client{Jar: jar}, authURL, "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rp.Call("callback", map[string]any{"url": callback})
	if err != nil {
		t.Fatal(err)
	}
	if rptest.Str(got, "claims", "sub") != "alice" || rptest.Str(got, "claims", "nonce") != rptest.Str(auth, "nonce") {
		t.Fatalf("claims %v, want sub alice and the request's nonce", got["claims"])
	}
	info, err := rp.Call("userinfo", map[string]any{"accessToken": rptest.Str(got, "tokens", "access_token"), "sub": "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if rptest.Str(info, "userinfo", "email") != "alice@example.com" {
		t.Fatalf("userinfo %v", info)
	}
	_, err = rp.Call("callback", map[string]any{"url": callback})
	var rpErr *rptest.Error
	if !errors.As(err, &rpErr) || rpErr.OAuthError != "invalid_grant" {
		t.Fatalf("a replayed code: %v, want the provider's invalid_grant", err)
	}
}
