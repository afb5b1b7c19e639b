// Package rptest runs a real OpenID Connect relying party for tests of
// actionkit's own provider: the npm package openid-client (OpenID
// Certified), run with node and driven over its standard input and
// output. Each call is one operation of the relying party (discovery, an
// authorization URL with PKCE, state and nonce, the code exchange with the
// ID token's validation, userinfo, refresh, revocation, introspection, an
// end-session URL), done by the library exactly as an application would.
package rptest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testenv"
)

// Client configures the relying party's registration at the provider.
type Client struct {
	Issuer   string
	ClientID string
	// Secret is the client secret, "" for a public client.
	Secret string
	// Auth is the token endpoint authentication: "basic" (default),
	// "post" or "none".
	Auth string
	// IDTokenAlg is the ID token algorithm the client registered; ""
	// is openid-client's default, RS256.
	IDTokenAlg string
}

// Error is a failure the relying party reported: Message is the
// library's, OAuthError the provider's error code when it answered one.
type Error struct {
	Message    string
	Code       string
	OAuthError string
	Status     int
}

func (e *Error) Error() string {
	return fmt.Sprintf("rptest: %s (code %s, error %s, status %d)", e.Message, e.Code, e.OAuthError, e.Status)
}

// RP is a running relying party.
type RP struct {
	t      testing.TB
	mu     sync.Mutex
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *syncbuf.Buffer
}

// Start runs a relying party for the test and discovers the provider of
// c; it stops when the test ends. Without node or npm the test is
// skipped, or fails when CI=true.
func Start(t testing.TB, c Client) *RP {
	t.Helper()
	dir := sockettest.NodePackage(t, "rp")
	cmd := exec.Command("node", "rp.mjs")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	rp := &RP{t: t, stderr: &syncbuf.Buffer{}}
	cmd.Stderr = rp.stderr
	cmd.WaitDelay = 5 * time.Second
	var err error
	if rp.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	rp.out = bufio.NewScanner(stdout)
	rp.out.Buffer(make([]byte, 0, 64<<10), 4<<20)
	if err := cmd.Start(); err != nil {
		testenv.Missing(t, "rptest: node", err, "install Node.js 20 and npm")
	}
	t.Cleanup(func() {
		_ = rp.in.Close() // the relying party exits when its input ends
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if _, err := rp.Call("discover", map[string]any{"issuer": c.Issuer, "clientId": c.ClientID,
		"clientSecret": c.Secret, "auth": c.Auth, "idTokenAlg": c.IDTokenAlg}); err != nil {
		t.Fatalf("rptest: discovery of %s: %v", c.Issuer, err)
	}
	return rp
}

// Call runs the operation op with args and returns its answer, or the
// relying party's *Error. The operations and their arguments are those of
// rp/rp.mjs.
func (rp *RP) Call(op string, args map[string]any) (map[string]any, error) {
	rp.t.Helper()
	req := map[string]any{"op": op}
	for k, v := range args {
		req[k] = v
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if _, err := rp.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("rptest: write %s: %w\n%s", op, err, rp.stderr.String())
	}
	answered := make(chan bool, 1)
	go func() { answered <- rp.out.Scan() }()
	select {
	case ok := <-answered:
		if !ok {
			return nil, fmt.Errorf("rptest: the relying party ended during %s: %v\n%s", op, rp.out.Err(), strings.TrimSpace(rp.stderr.String()))
		}
	case <-time.After(30 * time.Second):
		return nil, errors.New("rptest: no answer to " + op + " within 30s")
	}
	var answer map[string]any
	if err := json.Unmarshal(rp.out.Bytes(), &answer); err != nil {
		return nil, fmt.Errorf("rptest: answer to %s: %w", op, err)
	}
	if msg, ok := answer["error"].(string); ok {
		e := &Error{Message: msg}
		e.Code, _ = answer["code"].(string)
		e.OAuthError, _ = answer["oauthError"].(string)
		if s, ok := answer["status"].(float64); ok {
			e.Status = int(s)
		}
		return nil, e
	}
	return answer, nil
}

// Str returns the string at the path of keys in m ("" when absent).
func Str(m map[string]any, keys ...string) string {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}
