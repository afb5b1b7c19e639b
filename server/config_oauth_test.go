package main

import (
	"slices"
	"testing"
	"time"
)

// TestOAuthConfig: the provider's settings and their defaults; the
// resources are compared in their WHATWG serialization.
func TestOAuthConfig(t *testing.T) {
	c, err := loadEnv(map[string]string{"OAUTH_PROVIDER": "true", "ACCESS_TOKEN_ALG": "EdDSA", "PUBLIC_URL": "https://id.example.com",
		"DATA_ENCRYPTION_KEY": testDataKey,
		"OAUTH_RESOURCES":     "HTTPS://API.Example.com:443/v1, https://id.example.com/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	o := c.OAuth
	if !o.Enabled || o.Issuer != "https://id.example.com" || o.InteractionURL != "https://id.example.com/demo" ||
		o.AccessTokenTTL != 15*time.Minute || o.DynamicRegistration || !o.MetadataDocuments || o.MCPPath != "/mcp" ||
		!slices.Equal(o.Resources, []string{"https://api.example.com/v1", "https://id.example.com/mcp"}) {
		t.Fatalf("config %+v", o)
	}
	c, err = loadEnv(map[string]string{"PUBLIC_URL": "http://localhost:8000"})
	if err != nil {
		t.Fatal(err)
	}
	if c.OAuth.Enabled || !slices.Equal(c.OAuth.Resources, []string{"http://localhost:8000/", "http://localhost:8000/mcp"}) {
		t.Fatalf("defaults %+v", c.OAuth)
	}
	// MCP_PATH set to empty turns the endpoint off (and drops its resource).
	env := map[string]string{"MCP_PATH": ""}
	c, err = loadConfigLookup(func(k string) string { return env[k] }, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if c.OAuth.MCPPath != "" || len(c.OAuth.Resources) != 1 {
		t.Fatalf("MCP_PATH empty: %+v", c.OAuth)
	}
}

// TestOAuthConfigRefusals: the provider does not start on a shared
// secret, on an issuer that is not an origin, or in production with no
// page to sign users in on.
func TestOAuthConfigRefusals(t *testing.T) {
	on := func(extra map[string]string) map[string]string {
		env := map[string]string{"OAUTH_PROVIDER": "true", "ACCESS_TOKEN_ALG": "EdDSA", "PUBLIC_URL": "https://id.example.com",
			"DATA_ENCRYPTION_KEY": testDataKey}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	prod := map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey}
	checkRefusals(t, []configRefusal{
		{"a shared secret", on(map[string]string{"ACCESS_TOKEN_ALG": "HS256"}), []string{"OAUTH_PROVIDER"}},
		{"an issuer with a path", on(map[string]string{"PUBLIC_URL": "https://id.example.com/auth"}), []string{"PUBLIC_URL"}},
		{"an issuer with a trailing slash", on(map[string]string{"PUBLIC_URL": "https://id.example.com/"}), []string{"PUBLIC_URL"}},
		{"an upper-case host", on(map[string]string{"PUBLIC_URL": "https://ID.example.com"}), []string{"PUBLIC_URL"}},
		{"the default port", on(map[string]string{"PUBLIC_URL": "https://id.example.com:443"}), []string{"PUBLIC_URL"}},
		{"http in production", on(merge(prod, map[string]string{"PUBLIC_URL": "http://id.example.com", "DEMO_ENABLED": "true"})), []string{"PUBLIC_URL"}},
		{"no interaction page in production", on(prod), []string{"OAUTH_INTERACTION_URL", "DEMO_ENABLED"}},
		{"a resource with a fragment", on(map[string]string{"OAUTH_RESOURCES": "https://api.example.com/#x"}), []string{"OAUTH_RESOURCES"}},
		{"an MCP path that is not a path", on(map[string]string{"MCP_PATH": "mcp"}), []string{"MCP_PATH"}},
		{"insecure hosts in production", on(merge(prod, map[string]string{"DEMO_ENABLED": "true", "OAUTH_INSECURE_HOSTS": "127.0.0.1"})), []string{"OAUTH_INSECURE_HOSTS"}},
	})
	for _, env := range []map[string]string{
		on(merge(prod, map[string]string{"DEMO_ENABLED": "true"})),
		on(merge(prod, map[string]string{"OAUTH_INTERACTION_URL": "https://id.example.com/signin"})),
	} {
		if _, err := loadEnv(env); err != nil {
			t.Errorf("%v: %v", env, err)
		}
	}
}

// merge returns a copy of a with b's entries added.
func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
