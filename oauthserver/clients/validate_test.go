package clients

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/models"
)

// TestValidRedirectURI: every rule of CONTRACT §19 and the bypasses peers
// shipped (userinfo, fragments, wildcards, dot segments, look-alike
// loopback hosts, schemes without a dot).
func TestValidRedirectURI(t *testing.T) {
	t.Parallel()
	good := []string{
		"https://app.example/cb",
		"https://app.example:8443/oauth/callback?x=1",
		"http://127.0.0.1/cb",
		"http://127.0.0.1:53123/cb",
		"http://[::1]:8080/cb",
		"http://localhost:3000/callback",
		"com.example.app:/cb",
		"com.example.app:/oauth2redirect/example-provider",
	}
	for _, u := range good {
		if err := ValidRedirectURI(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
	bad := []string{
		"",
		"/cb",
		"app.example/cb",
		"https://good.example@evil.example/cb",
		"https://user:pass@good.example/cb",
		"https://evil.example/cb#x",
		"https://evil.example/cb#",
		"https://*.example/cb",
		"https://app.example/*",
		"http://example.com/cb",
		"http://127.0.0.1.evil.example/cb",
		"http://localhost.evil.example/cb",
		"http://[::1].evil.example/cb",
		"http://10.0.0.1/cb",
		"javascript:alert(1)",
		"javascript://app.example/%0aalert(1)",
		"data:text/html,<script>alert(1)</script>",
		"file:///etc/passwd",
		"myapp:/cb",
		"myapp://cb",
		"com.example.app://cb",
		"com.example.app:cb",
		"com.example.app:",
		"HTTPS://app.example/cb",
		"https://APP.example/cb",
		"https://app.example/a/../evil",
		"https://app.example/a/..;/evil",
		"https://app.example/a/%2e%2e/evil",
		"https://app.example/a/%2E%2E/evil",
		"https://app.example/a%2fb",
		"https://app.example/./cb",
		"https://app.example\\@evil.example/cb",
		"https://app.example/c b",
		"https://app.example/cb\x00",
		"https://app.example/cb\n",
		"https:///cb",
		"https:app.example/cb",
		"https://app.example:/cb",
		"https://app%2eexample/cb",
		"https://" + strings.Repeat("a", 2050) + ".example/cb",
	}
	for _, u := range bad {
		if err := ValidRedirectURI(u); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

// TestValidWebURI: logo and client URIs are https only.
func TestValidWebURI(t *testing.T) {
	t.Parallel()
	if err := ValidWebURI("https://app.example/logo.png"); err != nil {
		t.Error(err)
	}
	for _, u := range []string{"http://app.example/logo.png", "javascript:alert(1)", "https://a@b.example/", "https://b.example/#x", "data:image/png;base64,AA"} {
		if ValidWebURI(u) == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

// TestIDsAndSecrets: client ids are ak_ and 32 base64url characters,
// secrets 32 random bytes as base64url, never twice the same.
func TestIDsAndSecrets(t *testing.T) {
	t.Parallel()
	id, err := NewClientID()
	if err != nil || !strings.HasPrefix(id, "ak_") || len(id) != 35 {
		t.Fatalf("client id %q (%v)", id, err)
	}
	if _, err := base64.RawURLEncoding.DecodeString(id[3:]); err != nil {
		t.Fatalf("client id %q is not base64url: %v", id, err)
	}
	s1, _ := NewSecret()
	s2, _ := NewSecret()
	if b, err := base64.RawURLEncoding.DecodeString(s1); err != nil || len(b) != 32 || s1 == s2 {
		t.Fatalf("secrets %q %q", s1, s2)
	}
}

// TestApplyAdminInput: the values of an admin client are checked field
// by field, each refusal naming its argument.
func TestApplyAdminInput(t *testing.T) {
	t.Parallel()
	p := Policy{ActionScopes: []string{"posts:write"}, AccessTokenAlg: "EdDSA"}
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	base := func() *models.OAuthClient {
		return &models.OAuthClient{Source: models.OAuthClientAdmin, GrantTypes: DefaultGrantTypes,
			TokenEndpointAuthMethod: AuthClientSecretBasic, MinAAL: 1, IDTokenAlg: AlgRS256}
	}
	ok := Input{Name: str(" App "), RedirectURIs: []string{"https://app.example/cb"}, Scope: str("openid  posts:write"),
		MinAAL: num(2), IDTokenAlg: str("EdDSA"), LogoURI: str("https://app.example/l.png")}
	c := base()
	if fe := p.apply(c, &ok); fe != nil {
		t.Fatal(fe)
	}
	if c.Name != "App" || *c.Scope != "openid posts:write" || c.MinAAL != 2 || c.IDTokenAlg != "EdDSA" {
		t.Fatalf("applied %+v", c)
	}
	cases := []struct {
		in    Input
		field string
	}{
		{Input{Name: str("  ")}, "name"},
		{Input{Name: str("a\x01b")}, "name"},
		{Input{RedirectURIs: []string{"https://a.example/cb", "https://a.example/cb"}}, "redirectUris"},
		{Input{RedirectURIs: []string{"http://a.example/cb"}}, "redirectUris"},
		{Input{RedirectURIs: []string{}}, "redirectUris"}, // the code grant needs one
		{Input{PostLogoutRedirectURIs: []string{"https://a.example/#x"}}, "postLogoutRedirectUris"},
		{Input{GrantTypes: []string{"implicit"}}, "grantTypes"},
		{Input{GrantTypes: []string{"password"}}, "grantTypes"},
		{Input{GrantTypes: []string{}}, "grantTypes"},
		{Input{GrantTypes: []string{"refresh_token"}}, "grantTypes"},
		{Input{GrantTypes: []string{"authorization_code", "authorization_code"}}, "grantTypes"},
		{Input{TokenEndpointAuthMethod: str("private_key_jwt")}, "tokenEndpointAuthMethod"},
		{Input{GrantTypes: []string{"client_credentials"}, TokenEndpointAuthMethod: str("none")}, "grantTypes"},
		{Input{Scope: str("openid admin")}, "scope"},
		{Input{Scope: str("openid openid")}, "scope"},
		{Input{Scope: str("")}, "scope"},
		{Input{MinAAL: num(3)}, "minAal"},
		{Input{IDTokenAlg: str("HS256")}, "idTokenAlg"},
		{Input{IDTokenAlg: str("ES256")}, "idTokenAlg"},
		{Input{LogoURI: str("http://app.example/l.png")}, "logoUri"},
		{Input{ClientURI: str("javascript:alert(1)")}, "clientUri"},
	}
	for _, tc := range cases {
		c := base()
		c.RedirectURIs = []string{"https://app.example/cb"}
		fe := p.apply(c, &tc.in)
		if fe == nil || fe.Field != tc.field {
			t.Errorf("%+v: got %v, want a refusal of %s", tc.in, fe, tc.field)
		}
	}
	// A machine client needs no redirect URI.
	m := base()
	if fe := p.apply(m, &Input{GrantTypes: []string{"client_credentials"}}); fe != nil {
		t.Errorf("machine client: %v", fe)
	}
}

// TestMetadataClient: a registration or document is read member by
// member; a document names a public client only, and unverified clients
// never get client_credentials.
func TestMetadataClient(t *testing.T) {
	t.Parallel()
	p := Policy{}
	parse := func(doc string) *Metadata {
		m, fe := ParseMetadata([]byte(doc))
		if fe != nil {
			t.Fatalf("%s: %v", doc, fe)
		}
		return m
	}
	c, fe := p.client(parse(`{"redirect_uris":["http://127.0.0.1/cb"],"unknown":{"x":1}}`), models.OAuthClientDynamic)
	if fe != nil || c.TokenEndpointAuthMethod != AuthClientSecretBasic || c.Scope != nil || len(c.GrantTypes) != 2 {
		t.Fatalf("dynamic defaults: %v %+v", fe, c)
	}
	if _, fe := ParseMetadata([]byte(`{"client_name":5}`)); fe == nil || fe.Member != "client_name" {
		t.Errorf("a number as client_name: %v", fe)
	}
	if _, fe := ParseMetadata([]byte(`[]`)); fe == nil {
		t.Errorf("an array accepted")
	}
	for doc, member := range map[string]string{
		`{"client_name":"A"}`: "redirect_uris",
		`{"client_name":"A","redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`:               "grant_types",
		`{"client_name":"A","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`: "token_endpoint_auth_method",
		`{"redirect_uris":["https://a.example/cb"]}`:                                                                      "client_name",
		`{"client_name":"A","redirect_uris":["https://a.example/cb"],"response_types":["token"]}`:                         "response_types",
	} {
		if _, fe := p.client(parse(doc), models.OAuthClientMetadata); fe == nil || fe.Member != member {
			t.Errorf("%s: %v, want a refusal of %s", doc, fe, member)
		}
	}
	if _, fe := p.client(parse(`{"redirect_uris":["https://a.example/cb#f"]}`), models.OAuthClientDynamic); fe == nil || !fe.Redirect {
		t.Errorf("a fragment: %v, want a redirect URI refusal", fe)
	}
}

// TestDocumentTTL: Cache-Control max-age kept between 5 min and 24 h.
func TestDocumentTTL(t *testing.T) {
	t.Parallel()
	for cc, want := range map[string]string{
		"":                       "5m0s",
		"max-age=60":             "5m0s",
		"public, max-age=3600":   "1h0m0s",
		"max-age=999999999999":   "24h0m0s",
		"no-store":               "5m0s",
		"max-age=3600, no-cache": "5m0s",
		"max-age=abc":            "5m0s",
	} {
		if got := documentTTL(cc).String(); got != want {
			t.Errorf("%q: %s, want %s", cc, got, want)
		}
	}
}
