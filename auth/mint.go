package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"strconv"
	"sync"

	"github.com/golang-jwt/jwt/v5"

	"github.com/actionkit/actionkit/internal/jsonw"
)

// jwtB64 is the encoding of a JWT's three parts: base64url without padding.
var jwtB64 = base64.RawURLEncoding

// hs256Header is the encoded header of an HS256 token: the bytes
// golang-jwt writes for it ({"alg":"HS256","typ":"JWT"}), encoded once.
var hs256Header = jwtB64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// macPool hands out HMAC-SHA256 states keyed with one secret. Reset
// returns a state to its keyed start, so a token costs no key schedule.
type macPool struct {
	key  []byte
	pool sync.Pool
}

// get returns a keyed HMAC-SHA256 ready for a message.
func (p *macPool) get() hash.Hash {
	if m, ok := p.pool.Get().(hash.Hash); ok {
		m.Reset()
		return m
	}
	return hmac.New(sha256.New, p.key)
}

// put gives m back for another token.
func (p *macPool) put(m hash.Hash) { p.pool.Put(m) }

// mint builds a signed token from its encoded header and claims: the
// signing input (header, a dot, the claims in base64url), a dot and the
// signature sign makes of the input. It writes what golang-jwt's
// SignedString writes for the same header and claims, without its
// reflection over the claims, the header map and the copies between them.
func mint(header string, wc *wireClaims, sign func(input []byte) ([]byte, error)) (string, error) {
	var claims [384]byte
	payload := wc.appendJSON(claims[:0])
	buf := make([]byte, 0, len(header)+1+jwtB64.EncodedLen(len(payload))+1+jwtB64.EncodedLen(128))
	buf = append(buf, header...)
	buf = append(buf, '.')
	buf = jwtB64.AppendEncode(buf, payload)
	sig, err := sign(buf)
	if err != nil {
		return "", err
	}
	buf = append(buf, '.')
	buf = jwtB64.AppendEncode(buf, sig)
	return string(buf), nil
}

// signHS256 signs the claims with the secret's pooled HMAC states.
func (t *Tokens) signHS256(wc *wireClaims) (string, error) {
	return mint(hs256Header, wc, func(input []byte) ([]byte, error) {
		m := t.macs.get()
		var sum [sha256.Size]byte
		m.Write(input)
		out := m.Sum(sum[:0])
		t.macs.put(m)
		return out, nil
	})
}

// signAsymmetric signs the claims with k under its algorithm, naming it by
// its kid in the header.
func signAsymmetric(k *Key, wc *wireClaims) (string, error) {
	method := jwt.GetSigningMethod(k.Alg)
	if method == nil {
		return "", jwt.ErrTokenUnverifiable
	}
	// The header's members in the order encoding/json writes a map: by key.
	hb := []byte(`{"alg":`)
	hb = jsonw.AppendString(hb, k.Alg)
	hb = append(hb, `,"kid":`...)
	hb = jsonw.AppendString(hb, k.ID)
	hb = append(hb, `,"typ":"JWT"}`...)
	return mint(jwtB64.EncodeToString(hb), wc, func(input []byte) ([]byte, error) {
		return method.Sign(string(input), k.Private)
	})
}

// appendJSON appends the claims as JSON: the bytes encoding/json writes
// for wireClaims (its fields in order, the zero dates and an empty amr
// left out).
func (c *wireClaims) appendJSON(b []byte) []byte {
	b = append(b, `{"sub":`...)
	b = jsonw.AppendString(b, c.Sub)
	b = append(b, `,"sid":`...)
	b = jsonw.AppendString(b, c.Sid)
	b = append(b, `,"type":`...)
	b = jsonw.AppendString(b, c.Type)
	b = append(b, `,"tokenVersion":`...)
	b = strconv.AppendInt(b, c.TokenVersion.n, 10)
	b = appendDate(b, `,"iat":`, c.Iat)
	b = appendDate(b, `,"exp":`, c.Exp)
	b = appendDate(b, `,"nbf":`, c.Nbf)
	b = append(b, `,"iss":`...)
	b = jsonw.AppendString(b, c.Iss)
	b = append(b, `,"aud":`...)
	b = jsonw.AppendString(b, c.Aud)
	if len(c.Amr) > 0 {
		b = append(b, `,"amr":[`...)
		for i, m := range c.Amr {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, m)
		}
		b = append(b, ']')
	}
	b = appendDate(b, `,"auth_time":`, c.AuthTime)
	return append(b, '}')
}

// appendDate appends a member named by key (with its comma) holding d in
// whole seconds, or nothing when d is zero.
func appendDate(b []byte, key string, d wireDate) []byte {
	if d.IsZero() {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, d.Unix(), 10)
}
