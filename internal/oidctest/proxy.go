package oidctest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// Signer signs the ID tokens a Rewrite makes: a key and its id.
type Signer struct {
	Key   any // *rsa.PrivateKey or *ecdsa.PrivateKey
	KeyID string
	Alg   jose.SignatureAlgorithm
}

// Rewrite replaces the ID token of the next token answers: Claims
// changes the provider's claims in place, and Signer signs the result.
type Rewrite struct {
	Claims func(claims map[string]any)
	Signer Signer
}

// Proxy is the provider's front door (its URL is the issuer).
type Proxy struct {
	t      testing.TB
	p      *Provider
	addr   string
	target string

	mu      sync.Mutex
	ln      net.Listener
	srv     *http.Server
	rewrite *Rewrite
	extra   []jose.JSONWebKey
	edit    func(doc map[string]any)

	keyReads       atomic.Int32
	discoveryReads atomic.Int32
}

func newProxy(t testing.TB, p *Provider) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	x := &Proxy{t: t, p: p, addr: ln.Addr().String()}
	x.serve(ln)
	t.Cleanup(x.Down)
	return x
}

// Addr is the proxy's host:port.
func (x *Proxy) Addr() string { return x.addr }

// KeyReads counts the reads of the provider's signing keys so far.
func (x *Proxy) KeyReads() int { return int(x.keyReads.Load()) }

// DiscoveryReads counts the reads of the provider's discovery document
// so far.
func (x *Proxy) DiscoveryReads() int { return int(x.discoveryReads.Load()) }

// EditDiscovery makes the discovery document as served edit's change of
// the provider's (nil: the provider's own).
func (x *Proxy) EditDiscovery(edit func(doc map[string]any)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.edit = edit
}

// SetRewrite makes the token answers carry ID tokens made by r (nil: the
// provider's own).
func (x *Proxy) SetRewrite(r *Rewrite) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rewrite = r
}

// Publish adds public keys to the provider's key set as the proxy serves
// it.
func (x *Proxy) Publish(keys ...jose.JSONWebKey) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.extra = append(x.extra, keys...)
}

// Down closes the proxy: the provider is unreachable.
func (x *Proxy) Down() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.srv != nil {
		_ = x.srv.Close()
		x.srv, x.ln = nil, nil
	}
}

// Up opens the proxy again on the same address.
func (x *Proxy) Up() {
	ln, err := net.Listen("tcp", x.addr)
	if err != nil {
		x.t.Fatalf("oidctest: proxy up: %v", err)
	}
	x.serve(ln)
}

func (x *Proxy) serve(ln net.Listener) {
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u, _ := url.Parse(x.target)
			r.SetURL(u)
			r.Out.Host = r.In.Host // the provider builds its URLs from the issuer either way
		},
		ModifyResponse: x.modify,
	}
	srv := &http.Server{Handler: rp}
	x.mu.Lock()
	x.ln, x.srv = ln, srv
	x.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// modify counts discovery and key reads, edits the discovery document,
// publishes the extra keys and rewrites the ID token of token answers.
func (x *Proxy) modify(res *http.Response) error {
	x.mu.Lock()
	rewrite, extra, edit := x.rewrite, append([]jose.JSONWebKey(nil), x.extra...), x.edit
	x.mu.Unlock()
	switch path := res.Request.URL.Path; {
	case path == "/.well-known/openid-configuration":
		x.discoveryReads.Add(1)
		if edit != nil {
			return editJSON(res, func(doc map[string]any) error { edit(doc); return nil })
		}
	case path == "/jwks":
		x.keyReads.Add(1)
		if len(extra) > 0 {
			return editJSON(res, func(doc map[string]any) error { return addKeys(doc, extra) })
		}
	case path == "/token" && rewrite != nil && res.StatusCode == http.StatusOK:
		return editJSON(res, func(doc map[string]any) error { return reissue(doc, rewrite) })
	}
	return nil
}

// editJSON replaces a JSON answer's body by edit's change of it.
func editJSON(res *http.Response, edit func(doc map[string]any) error) error {
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	if err := edit(doc); err != nil {
		return err
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	res.Body = io.NopCloser(bytes.NewReader(out))
	res.ContentLength = int64(len(out))
	res.Header.Set("Content-Length", strconv.Itoa(len(out)))
	res.Header.Del("Content-Encoding")
	return nil
}

func addKeys(doc map[string]any, extra []jose.JSONWebKey) error {
	keys, _ := doc["keys"].([]any)
	for _, k := range extra {
		raw, err := json.Marshal(k)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		keys = append(keys, m)
	}
	doc["keys"] = keys
	return nil
}

// reissue replaces the answer's id_token by r's version of its claims.
func reissue(doc map[string]any, r *Rewrite) error {
	idt, _ := doc["id_token"].(string)
	parts := strings.Split(idt, ".")
	if len(parts) != 3 {
		return errors.New("oidctest: the token answer has no ID token")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return err
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return err
	}
	if r.Claims != nil {
		r.Claims(claims)
	}
	signed, err := Sign(r.Signer, claims)
	if err != nil {
		return err
	}
	doc["id_token"] = signed
	return nil
}

// Sign makes a compact JWS of claims with s.
func Sign(s Signer, claims map[string]any) (string, error) {
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: s.Alg, Key: s.Key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", s.KeyID))
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(body)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// Own is the provider's own signer: its key and key id.
func (p *Provider) Own() Signer { return Signer{Key: p.Key, KeyID: p.KeyID, Alg: jose.RS256} }
