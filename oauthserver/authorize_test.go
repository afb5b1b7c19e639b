package oauthserver

import "testing"

// TestRedirectMatches: exact string equality, except that an http
// loopback URI matches on any port; no normalisation lets a bypass
// through.
func TestRedirectMatches(t *testing.T) {
	registered := []string{"https://app.example/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb", "com.example.app:/cb"}
	for uri, want := range map[string]bool{
		"https://app.example/cb":              true,
		"http://127.0.0.1/cb":                 true,
		"http://127.0.0.1:49152/cb":           true,
		"http://[::1]/cb":                     true,
		"http://[::1]:1/cb":                   true,
		"com.example.app:/cb":                 true,
		"https://app.example/cb/":             false,
		"https://app.example/cb/..;/x":        false,
		"https://App.example/cb":              false,
		"https://app.example@evil.example/cb": false,
		"http://127.0.0.1:1@evil.example/cb":  false,
		"http://127.0.0.1:0x50/cb":            false,
		"http://127.0.0.1:080/cb":             false,
		"http://localhost:5000/cb":            false,
		"http://127.0.0.1:5000/cb?x=1":        false,
		"http://127.0.0.1:5000/cb#x":          false,
		"https://127.0.0.1:5000/cb":           false,
		"com.example.app:/cb/x":               false,
	} {
		if got := RedirectMatches(registered, uri); got != want {
			t.Errorf("%s: %v, want %v", uri, got, want)
		}
	}
}

// TestLoopbackOrPrivateUse: only https redirect URIs are bound to one
// origin; loopback http and private-use schemes can be claimed by any
// local program.
func TestLoopbackOrPrivateUse(t *testing.T) {
	for uri, want := range map[string]bool{
		"https://app.example/cb": false, "http://127.0.0.1:4000/cb": true, "http://[::1]/cb": true,
		"http://localhost/cb": true, "com.example.app:/cb": true,
	} {
		if got := LoopbackOrPrivateUse(uri); got != want {
			t.Errorf("%s: %v, want %v", uri, got, want)
		}
	}
}

// TestResourceURI: resources compare in their WHATWG serialization.
func TestResourceURI(t *testing.T) {
	for raw, want := range map[string]string{
		"HTTPS://API.Example:443/mcp": "https://api.example/mcp",
		"http://127.0.0.1:80":         "http://127.0.0.1/",
		"https://api.example/":        "https://api.example/",
		"https://api.example":         "https://api.example/",
		"https://api.example/a/../b":  "https://api.example/b",
	} {
		if got, ok := ResourceURI(raw); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"https://api.example/#f", "urn:x", "https://u@api.example/", "/relative"} {
		if _, ok := ResourceURI(raw); ok {
			t.Errorf("%s accepted", raw)
		}
	}
}

// TestSameResource: userinfo's audience check takes the issuer written
// with or without its trailing slash, and nothing else.
func TestSameResource(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"https://id.example", "https://id.example", true},
		{"https://id.example/", "https://id.example", true},
		{"https://ID.example:443", "https://id.example", true},
		{"https://id.example/mcp", "https://id.example", false},
		{"https://id.example.evil", "https://id.example", false},
		{"", "https://id.example", false},
	} {
		if got := sameResource(c.a, c.b); got != c.want {
			t.Errorf("sameResource(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
