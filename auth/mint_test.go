package auth

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/actionkit/actionkit/action"
)

// mintCases are claims that exercise every member of the payload and the
// escapes of a JSON string: the ordinary ones, an amr of two methods with
// an auth time, and strings holding quotes, a backslash, control
// characters, HTML's characters, U+2028, non-ASCII and invalid UTF-8.
func mintCases() map[string]*wireClaims {
	iat := wireDate{jwt.NumericDate{Time: testT0}}
	exp := wireDate{jwt.NumericDate{Time: testT0.Add(15 * time.Minute)}}
	return map[string]*wireClaims{
		"plain": {Sub: testID.String(), Sid: testSID.String(), Type: "user", TokenVersion: wireVersion{n: 3, set: true},
			Iat: iat, Exp: exp, Iss: "actionkit", Aud: "user:web"},
		"amr": {Sub: testID.String(), Sid: testSID.String(), Type: "admin", TokenVersion: wireVersion{n: 0, set: true},
			Iat: iat, Exp: exp, Iss: "actionkit", Aud: "admin:app", Amr: []string{"pwd", "otp"},
			AuthTime: wireDate{jwt.NumericDate{Time: testT0.Add(-time.Hour)}}},
		"escapes": {Sub: "a\"b\\c", Sid: "\x00\x1f\t\n", Type: "<script>&amp;", TokenVersion: wireVersion{n: 1 << 62, set: true},
			Iat: iat, Exp: exp, Nbf: iat, Iss: "iss\u2028\u2029é\x7f", Aud: "bad\xff\xfeutf8", Amr: []string{"", "\"'"}},
		"empty amr": {Sub: testID.String(), Sid: testSID.String(), Type: "user", TokenVersion: wireVersion{n: 7, set: true},
			Iat: iat, Exp: exp, Iss: "actionkit", Aud: "user:web", Amr: []string{}},
	}
}

// The claims are written byte for byte as encoding/json writes them.
func TestClaimsJSONMatchesEncodingJSON(t *testing.T) {
	for name, wc := range mintCases() {
		want, err := json.Marshal(wc)
		if err != nil {
			t.Fatal(err)
		}
		if got := wc.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// An HS256 and an EdDSA token (whose signatures are deterministic) are
// the very bytes golang-jwt's SignedString makes of the same claims, and
// an ES256 token verifies with golang-jwt under its key.
func TestMintMatchesGolangJWT(t *testing.T) {
	now := testT0
	hs := newTestTokens(t, &now)
	ed := testKey(t, EdDSA, "ed-1")
	es := testKey(t, ES256, "es\"1")
	for name, wc := range mintCases() {
		got, err := hs.signHS256(wc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jwt.NewWithClaims(jwt.SigningMethodHS256, wc).SignedString(testSecret)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("HS256 %s:\n got %s\nwant %s", name, got, want)
		}
		got, err = signAsymmetric(ed, wc)
		if err != nil {
			t.Fatal(err)
		}
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, wc)
		tok.Header["kid"] = ed.ID
		if want, err = tok.SignedString(ed.Private); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("EdDSA %s:\n got %s\nwant %s", name, got, want)
		}
		got, err = signAsymmetric(es, wc)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := jwt.NewParser(jwt.WithoutClaimsValidation()).Parse(got, func(tok *jwt.Token) (any, error) {
			if tok.Header["kid"] != es.ID || tok.Method.Alg() != ES256 {
				t.Errorf("ES256 %s: header %v", name, tok.Header)
			}
			return es.Public, nil
		})
		if err != nil || !parsed.Valid {
			t.Errorf("ES256 %s: %v", name, err)
		}
	}
}

// Tokens minted at once from many goroutines, each with claims of its
// own, all verify and carry their own claims: the pooled HMAC states are
// never shared between two tokens.
func TestMintConcurrent(t *testing.T) {
	now := testT0
	tk := newTestTokens(t, &now)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 200 {
				version := int64(i*1000 + j)
				token, _, err := tk.Issue(user, testID, testSID, version, action.App)
				if err != nil {
					t.Error(err)
					return
				}
				c, err := tk.Parse(user, token)
				if err != nil || c.TokenVersion != version || c.Client != action.App {
					t.Errorf("token %d: %+v, %v", version, c, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
