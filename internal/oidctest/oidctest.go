// Package oidctest runs a real OpenID Connect provider for tests: the npm
// package oidc-provider (OpenID Certified), started on 127.0.0.1 with
// node, with signing keys the test holds, one client, and accounts whose
// claims the test sets. The test signs in through the provider's own
// login and consent pages over HTTP (SignIn).
//
// The provider is reached through a proxy the test controls, whose URL is
// the issuer: it can be taken down and brought back (an outage), count the
// reads of the discovery document and of the signing keys, edit the
// discovery document, publish extra keys, and replace the ID token
// of the token endpoint's answer by one the test makes from it (signed by
// the provider's key, which the test holds, or by another), so that tests
// can check what the relying party does with tokens a provider should
// never send.
package oidctest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testenv"
)

// Options configure a provider.
type Options struct {
	// RedirectURI is the client's registered redirect URI.
	RedirectURI string
	// IDTokenTTL is the lifetime of its ID tokens; zero means an hour.
	IDTokenTTL time.Duration
}

// Provider is a running provider.
type Provider struct {
	t testing.TB
	// Issuer is its issuer URL (the proxy's), exactly as its tokens say.
	Issuer       string
	ClientID     string
	ClientSecret string
	// Key is its signing key, KeyID that key's id.
	Key   *rsa.PrivateKey
	KeyID string
	// Proxy stands between the world and the provider.
	Proxy       *Proxy
	redirectURI string
	direct      string // the node server, for the test's own calls
}

// Start runs a provider for the test and stops it when the test ends.
// Without node or npm the test is skipped, or fails when CI=true.
func Start(t testing.TB, opts Options) *Provider {
	t.Helper()
	dir := sockettest.NodePackage(t, "provider") // provider.mjs and its package.json
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{t: t, ClientID: "actionkit-test", ClientSecret: "client-secret-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		Key: key, KeyID: "provider-key-1", redirectURI: opts.RedirectURI}
	p.Proxy = newProxy(t, p)
	p.Issuer = "http://" + p.Proxy.Addr()
	port := p.runNode(t, dir, opts)
	p.direct = "http://127.0.0.1:" + port
	p.Proxy.target = p.direct
	return p
}

// runNode starts node with the provider's configuration and returns the
// port it listens on.
func (p *Provider) runNode(t testing.TB, dir string, opts Options) string {
	t.Helper()
	jwk, err := json.Marshal(jose.JSONWebKey{Key: p.Key, KeyID: p.KeyID, Algorithm: "RS256", Use: "sig"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{
		"issuer": p.Issuer, "clientId": p.ClientID, "clientSecret": p.ClientSecret,
		"redirectUris": []string{opts.RedirectURI}, "jwks": map[string]any{"keys": []json.RawMessage{jwk}},
		"idTokenTTL": int(opts.IDTokenTTL / time.Second),
	})
	cmd := exec.Command("node", "provider.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OIDCTEST_CONFIG="+string(cfg))
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		testenv.Missing(t, "oidctest: node", err, "install Node.js 20 and npm")
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the provider exits when its input ends
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var msg struct{ Port int }
			if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Port != 0 {
				ready <- strconv.Itoa(msg.Port)
			}
		}
	}()
	select {
	case port := <-ready:
		return port
	case <-time.After(60 * time.Second):
		t.Fatalf("oidctest: the provider did not start within 60s:\n%s", strings.TrimSpace(stderr.String()))
		return ""
	}
}

// SetAccount sets the claims of the account sub (replacing earlier ones):
// email, email_verified, given_name and so on, as the ID token will carry
// them.
func (p *Provider) SetAccount(sub string, claims map[string]any) {
	p.t.Helper()
	body, _ := json.Marshal(map[string]any{"sub": sub, "claims": claims})
	res, err := http.Post(p.direct+"/__test/accounts", "application/json", bytes.NewReader(body))
	if err != nil {
		p.t.Fatalf("oidctest: set account: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		p.t.Fatalf("oidctest: set account: %s", res.Status)
	}
}

// CallbackOf reports whether u is the client's redirect URI, with the
// provider's answer in its query.
func (p *Provider) CallbackOf(u string) bool {
	return strings.HasPrefix(u, p.redirectURI+"?")
}
