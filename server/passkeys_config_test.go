package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestWebAuthnConfig: the relying party comes from PUBLIC_URL unless
// WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS say otherwise (make run's
// defaults give localhost and http://localhost:8000); a relying party id
// that is not a domain, or an origin a browser would not use passkeys of
// that domain from, is refused at start; defaults from a PUBLIC_URL that
// breaks those rules (an address as its host, plain http) leave passkeys
// off.
func TestWebAuthnConfig(t *testing.T) {
	c, err := loadEnv(nil)
	if err != nil || c.WebAuthn == nil || c.WebAuthn.RPID != "localhost" || c.WebAuthn.RPName != "actionkit" ||
		!slices.Equal(c.WebAuthn.Origins, []string{"http://localhost:8000"}) {
		t.Fatalf("defaults: %+v, %v", c.WebAuthn, err)
	}
	c, err = loadEnv(map[string]string{"PUBLIC_URL": "https://App.Example.com:8443/base"})
	if err != nil || c.WebAuthn.RPID != "app.example.com" || !slices.Equal(c.WebAuthn.Origins, []string{"https://app.example.com:8443"}) {
		t.Errorf("from PUBLIC_URL: %+v, %v", c.WebAuthn, err)
	}
	c, err = loadEnv(map[string]string{"PUBLIC_URL": "https://api.example.com", "WEBAUTHN_RP_ID": "Example.com", "WEBAUTHN_RP_NAME": "Example",
		"WEBAUTHN_ORIGINS": "https://example.com, https://App.example.com:8443,android:apk-key-hash:" + strings.Repeat("Ab-_", 11)})
	if err != nil || c.WebAuthn.RPID != "example.com" || c.WebAuthn.RPName != "Example" ||
		!slices.Equal(c.WebAuthn.Origins, []string{"https://example.com", "https://app.example.com:8443"}) || len(c.WebAuthn.AppOrigins) != 1 {
		t.Errorf("explicit: %+v, %v", c.WebAuthn, err)
	}
	// Defaults a browser would refuse: passkeys off when taken from
	// PUBLIC_URL, a start-up error under an explicit WEBAUTHN_RP_ID.
	if c, err = loadEnv(map[string]string{"PUBLIC_URL": "http://api.example.com"}); err != nil || c.WebAuthn != nil ||
		!strings.Contains(c.webauthnOff, "want https") {
		t.Errorf("plain http PUBLIC_URL: %+v, %v (%q); want passkeys off", c.WebAuthn, err, c.webauthnOff)
	}
	if _, err = loadEnv(map[string]string{"PUBLIC_URL": "https://api.example.org", "WEBAUTHN_RP_ID": "example.com"}); err == nil ||
		!strings.Contains(err.Error(), "WEBAUTHN_ORIGINS") {
		t.Errorf("an explicit WEBAUTHN_RP_ID that PUBLIC_URL is not under: %v, want a WEBAUTHN_ORIGINS error", err)
	}
	for _, host := range []string{"http://127.0.0.1:8000", "http://[::1]:8000"} {
		c, err = loadEnv(map[string]string{"PUBLIC_URL": host})
		if err != nil || c.WebAuthn != nil || c.webauthnOff == "" {
			t.Errorf("PUBLIC_URL %s: %+v, %v; want passkeys off", host, c.WebAuthn, err)
		}
	}
	for name, env := range map[string]map[string]string{
		"an address":              {"WEBAUTHN_RP_ID": "10.0.0.1"},
		"a port":                  {"WEBAUTHN_RP_ID": "example.com:443"},
		"a scheme":                {"WEBAUTHN_RP_ID": "https://example.com"},
		"an origin elsewhere":     {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "https://example.org"},
		"a suffix that is no dot": {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "https://badexample.com"},
		"http off localhost":      {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "http://example.com"},
		"a path":                  {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "https://example.com/app"},
		"a bad app origin":        {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "https://example.com,android:apk-key-hash:x"},
		"only an app origin":      {"WEBAUTHN_RP_ID": "example.com", "WEBAUTHN_ORIGINS": "android:apk-key-hash:" + strings.Repeat("A", 43)},
	} {
		_, err := loadEnv(env)
		if err == nil || !strings.Contains(err.Error(), "WEBAUTHN_") {
			t.Errorf("%s: %v, want a WEBAUTHN_ error", name, err)
		}
	}
	if _, err := loadEnv(map[string]string{"WEBAUTHN_RP_NAME": strings.Repeat("n", 65)}); err == nil {
		t.Error("a 65-character WEBAUTHN_RP_NAME was accepted")
	}
}

// TestPasskeysOff: with passkeys off, their ceremonies answer 503 and the
// rest of the server works.
func TestPasskeysOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "PUBLIC_URL=http://127.0.0.1:8000"), "api")
	u := register(t, s.client(), "web")
	o := userOwner(u)
	o.call("passkeys/registeroptions", nil).want(t, 503, "SERVICE_UNAVAILABLE")
	o.call("passkeys", nil).want(t, 200, "")
	s.client().call(http.MethodPost, "/v1/users/passkeys/loginoptions", nil).want(t, 503, "SERVICE_UNAVAILABLE")
	if !strings.Contains(s.logs.String(), "passkeys are off") {
		t.Error("no warning at start")
	}
}
