package main

import (
	"slices"
	"strings"
	"testing"
)

// TestInsecureHostsConfig: OAUTH_INSECURE_HOSTS is a comma list of host
// or host:port, lower-cased; a malformed entry and any value in
// production stop the start.
func TestInsecureHostsConfig(t *testing.T) {
	read := func(env map[string]string) (*config, error) {
		return loadConfig(func(k string) string { return env[k] })
	}
	c, err := read(map[string]string{"OAUTH_INSECURE_HOSTS": " Hooks.Local:8080, 127.0.0.1 ,,[::1]:9000"})
	if err != nil || !slices.Equal(c.InsecureHosts, []string{"hooks.local:8080", "127.0.0.1", "[::1]:9000"}) {
		t.Fatalf("got %v, %v", c, err)
	}
	if c, _ := read(map[string]string{}); len(c.InsecureHosts) != 0 {
		t.Errorf("default: %v, want none", c.InsecureHosts)
	}
	for _, env := range []map[string]string{
		{"OAUTH_INSECURE_HOSTS": "http://hooks.local/"},
		{"OAUTH_INSECURE_HOSTS": "user@hooks.local"},
		{"OAUTH_INSECURE_HOSTS": "127.0.0.1", "APP_ENV": "production", "ACCESS_TOKEN_SECRET": testSecret, "DATA_ENCRYPTION_KEY": testDataKey},
	} {
		if _, err := read(env); err == nil || !strings.Contains(err.Error(), "OAUTH_INSECURE_HOSTS") {
			t.Errorf("%v: got %v, want an OAUTH_INSECURE_HOSTS error", env, err)
		}
	}
}
