package auth

import (
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/google/uuid"
)

func TestIssueParseRoundTrip(t *testing.T) {
	now := testT0.Add(500 * time.Millisecond)
	tk := newTestTokens(t, &now)
	for _, tc := range []struct {
		name   string
		owner  action.OwnerType
		client action.Client
		aud    string
	}{
		{"user web", user, action.Web, "user-web"},
		{"user app", user, action.App, "user-app"},
		{"admin web", admin, action.Web, "admin-web"},
		{"admin app", admin, action.App, "admin-app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token, exp, err := tk.Issue(tc.owner, testID, testSID, 7, tc.client)
			if err != nil {
				t.Fatalf("Issue: %v", err)
			}
			if want := testT0.Add(15 * time.Minute); !exp.Equal(want) {
				t.Errorf("expiresAt: got %v, want %v", exp, want)
			}
			got, err := tk.Parse(tc.owner, token)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := Claims{Subject: testID, SessionID: testSID, Type: tc.owner, TokenVersion: 7, Client: tc.client,
				IssuedAt: testT0, ExpiresAt: testT0.Add(15 * time.Minute)}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("claims: got %+v, want %+v", got, want)
			}
			payload := decodePayload(t, token)
			wantPayload := map[string]any{
				"sub": testID.String(), "sid": testSID.String(), "type": string(tc.owner), "tokenVersion": 7.0,
				"iat": float64(testT0.Unix()), "exp": float64(testT0.Add(15 * time.Minute).Unix()),
				"iss": "actionkit", "aud": tc.aud,
			}
			if len(payload) != len(wantPayload) {
				t.Errorf("payload: got %v, want %v", payload, wantPayload)
			}
			for k, v := range wantPayload {
				if payload[k] != v {
					t.Errorf("payload %s: got %#v, want %#v", k, payload[k], v)
				}
			}
		})
	}
}

func decodePayload(tb testing.TB, token string) map[string]any {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("token has %d parts, want 3", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		tb.Fatalf("payload: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("payload: %v", err)
	}
	return m
}

func TestParseAccepts(t *testing.T) {
	now := testT0
	tk := newTestTokens(t, &now)
	p := validPayload()
	for _, tc := range []struct {
		name   string
		owner  action.OwnerType
		token  string
		client action.Client
	}{
		{"hand-built user-web", user, hs256(t, p), action.Web},
		{"user-app", user, hs256(t, p.with("aud", "user-app")), action.App},
		{"admin-web", admin, hs256(t, p.with("type", "admin").with("aud", "admin-web")), action.Web},
		{"tokenVersion 0", user, hs256(t, p.with("tokenVersion", 0)), action.Web},
		{"expired 29s ago, within leeway", user, hs256(t, p.with("exp", testT0.Add(-29*time.Second).Unix())), action.Web},
		{"issued 29s ahead, within leeway", user, hs256(t, p.with("iat", testT0.Add(29*time.Second).Unix())), action.Web},
		{"unknown extra claim", user, hs256(t, p.with("jti", "x")), action.Web},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tk.Parse(tc.owner, tc.token)
			if err != nil {
				t.Fatalf("Parse: got %v, want nil", err)
			}
			if got.Subject != testID || got.Client != tc.client || got.Type != tc.owner {
				t.Errorf("claims: got %+v, want subject %v, client %s, type %s", got, testID, tc.client, tc.owner)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	asymmetricKeys(t)
	now := testT0
	tk := newTestTokens(t, &now)
	good, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	p := validPayload()
	hs := func(payload any) string { return hs256(t, payload) }
	withHeader := func(h any, sign func(string) []byte) string { return forge(t, h, p, sign) }
	for _, tc := range []struct {
		name  string
		owner action.OwnerType
		token string
		why   string // in the wrapped reason
	}{
		{"empty", user, "", "empty token"},
		{"garbage", user, "not-a-token", "segments"},
		{"two segments", user, strings.Join(strings.Split(good, ".")[:2], "."), "segments"},
		{"four segments", user, good + ".x", "segments"},
		{"longer than MaxTokenBytes", user, hs(p.with("pad", strings.Repeat("a", MaxTokenBytes))), "limit 4096"},
		{"alg none, no signature", user, withHeader(header("none"), noSignature), "signing method none is invalid"},
		{"alg none, HMAC signature", user, withHeader(header("none"), hmacSigner(crypto.SHA256, testSecret)), "signing method none is invalid"},
		{"alg missing", user, withHeader(map[string]string{"typ": "JWT"}, hmacSigner(crypto.SHA256, testSecret)), "alg) is unspecified"},
		{"alg unknown", user, withHeader(header("HS257"), hmacSigner(crypto.SHA256, testSecret)), "alg) is unavailable"},
		{"RS256 with a real RSA key", user, withHeader(header("RS256"), rs256Signer), "signing method RS256 is invalid"},
		{"ES256 with a real EC key", user, withHeader(header("ES256"), tokenforge.ES256(ecKey)), "signing method ES256 is invalid"},
		{"HS384 with the right secret", user, withHeader(header("HS384"), hmacSigner(crypto.SHA384, testSecret)), "signing method HS384 is invalid"},
		{"HS512 with the right secret", user, withHeader(header("HS512"), hmacSigner(crypto.SHA512, testSecret)), "signing method HS512 is invalid"},
		{"HS256 keyed with the RSA public key (key confusion)", user, withHeader(header("HS256"), hmacSigner(crypto.SHA256, rsaPEM)), "signature is invalid"},
		{"RS256 header, HMAC keyed with the RSA public key", user, withHeader(header("RS256"), hmacSigner(crypto.SHA256, rsaPEM)), "signing method RS256 is invalid"},
		{"wrong secret", user, withHeader(header("HS256"), hmacSigner(crypto.SHA256, []byte("another-secret-0123456789abcdef-xyz"))), "signature is invalid"},
		{"tampered signature", user, tamperSignature(good), "signature is invalid"},
		{"tampered payload", user, swapPayload(t, good, p.with("tokenVersion", 4)), "signature is invalid"},
		{"signature stripped", user, good[:strings.LastIndexByte(good, '.')+1], "signature is invalid"},
		{"wrong iss", user, hs(p.with("iss", "someone-else")), "invalid issuer"},
		{"missing iss", user, hs(p.with("iss", deleteKey)), "iss claim is required"},
		{"expired beyond leeway", user, hs(p.with("exp", testT0.Add(-31*time.Second).Unix())), "token is expired"},
		{"missing exp", user, hs(p.with("exp", deleteKey)), "exp claim is required"},
		{"exp as string", user, hs(p.with("exp", "2030-01-01")), "date claim is not whole seconds"},
		{"iat in the future beyond leeway", user, hs(p.with("iat", testT0.Add(31*time.Second).Unix())), "used before issued"},
		{"missing iat", user, hs(p.with("iat", deleteKey)), "iat claim is required"},
		{"nbf in the future", user, hs(p.with("nbf", testT0.Add(time.Hour).Unix())), "not valid yet"},
		{"type admin on user", user, hs(p.with("type", "admin")), "type \"admin\", want \"user\""},
		{"type user on admin", admin, hs(p.with("aud", "admin-web")), "type \"user\", want \"admin\""},
		{"missing type", user, hs(p.with("type", deleteKey)), "type \"\", want \"user\""},
		{"user token parsed as admin", admin, good, "type \"user\", want \"admin\""},
		{"aud of another owner", user, hs(p.with("aud", "admin-web")), "audience \"admin-web\""},
		{"aud of unknown client", user, hs(p.with("aud", "user-desktop")), "audience \"user-desktop\""},
		{"aud owner only", user, hs(p.with("aud", "user")), "audience \"user\""},
		{"aud with empty client", user, hs(p.with("aud", "user-")), "audience \"user-\""},
		{"aud prefix collision", user, hs(p.with("aud", "users-web")), "audience \"users-web\""},
		{"missing aud", user, hs(p.with("aud", deleteKey)), "audience \"\""},
		{"aud as one-element array", user, hs(p.with("aud", []string{"user-web"})), "cannot unmarshal array"},
		{"aud as two-element array", user, hs(p.with("aud", []string{"user-web", "user-app"})), "cannot unmarshal array"},
		{"sub not a UUID", user, hs(p.with("sub", "42")), "sub is not a UUID"},
		{"sub UUID without hyphens", user, hs(p.with("sub", strings.ReplaceAll(testID.String(), "-", ""))), "sub is not a UUID"},
		{"sub URN UUID", user, hs(p.with("sub", "urn:uuid:"+testID.String())), "sub is not a UUID"},
		{"sub nil UUID", user, hs(p.with("sub", uuid.Nil.String())), "sub is not a UUID"},
		{"sub 36 chars not a UUID", user, hs(p.with("sub", strings.Repeat("z", 36))), "sub is not a UUID"},
		{"missing sub", user, hs(p.with("sub", deleteKey)), "sub is not a UUID"},
		{"missing sid", user, hs(p.with("sid", deleteKey)), "sid is missing or not a UUID"},
		{"sid not a UUID", user, hs(p.with("sid", "42")), "sid is missing or not a UUID"},
		{"sid nil UUID", user, hs(p.with("sid", uuid.Nil.String())), "sid is missing or not a UUID"},
		{"sid a number", user, hs(p.with("sid", 7)), "cannot unmarshal number"},
		{"tokenVersion missing", user, hs(p.with("tokenVersion", deleteKey)), "tokenVersion claim is required"},
		{"tokenVersion null", user, hs(p.with("tokenVersion", nil)), "tokenVersion claim is required"},
		{"tokenVersion negative", user, hs(p.with("tokenVersion", -1)), "negative tokenVersion"},
		{"tokenVersion fraction", user, hs(p.with("tokenVersion", 1.5)), "not an integer"},
		{"tokenVersion 3.0", user, hs(p.with("tokenVersion", json.RawMessage("3.0"))), "not an integer"},
		{"tokenVersion exponent", user, hs(p.with("tokenVersion", json.RawMessage("3e0"))), "not an integer"},
		{"tokenVersion string", user, hs(p.with("tokenVersion", "3")), "not an integer"},
		{"tokenVersion beyond int64", user, hs(p.with("tokenVersion", json.RawMessage("9223372036854775808"))), "not an integer"},
		{"payload not an object", user, hs([]int{1}), "cannot unmarshal array into Go value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tk.Parse(tc.owner, tc.token)
			if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Parse: got (%+v, %v), want ErrInvalidToken because %s", got, err, tc.why)
			}
			if !reflect.DeepEqual(got, Claims{}) {
				t.Errorf("claims: got %+v, want zero", got)
			}
		})
	}
}

// tamperSignature changes one character in the middle of the signature
// (the last character may only carry padding bits).
func tamperSignature(token string) string {
	i := strings.LastIndexByte(token, '.') + 10
	c := byte('A')
	if token[i] == 'A' {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}

// swapPayload replaces token's payload, keeping its header and signature.
func swapPayload(tb testing.TB, token string, payload any) string {
	tb.Helper()
	parts := strings.Split(token, ".")
	return parts[0] + "." + segment(tb, payload) + "." + parts[2]
}

func TestParseClock(t *testing.T) {
	now := testT0
	tk := newTestTokens(t, &now)
	token, _, err := tk.Issue(user, testID, testSID, 1, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		at    time.Time
		valid bool
	}{
		{"clock behind by ClockSkew", testT0.Add(-ClockSkew), true},
		{"clock behind by more than ClockSkew", testT0.Add(-ClockSkew - time.Second), false},
		{"at expiry", testT0.Add(DefaultTTL), true},
		{"expiry plus ClockSkew less 1s", testT0.Add(DefaultTTL + ClockSkew - time.Second), true},
		{"expiry plus ClockSkew", testT0.Add(DefaultTTL + ClockSkew), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = tc.at
			_, err := tk.Parse(user, token)
			if got := err == nil; got != tc.valid {
				t.Errorf("valid: got %v (%v), want %v", got, err, tc.valid)
			}
		})
	}
}

func TestNewTokens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secret  []byte
		ttl     time.Duration
		wantErr bool
	}{
		{"32-byte secret", make([]byte, 32), 0, false},
		{"31-byte secret", make([]byte, 31), 0, true},
		{"nil secret", nil, 0, true},
		{"negative ttl", testSecret, -time.Minute, true},
		{"sub-second ttl", testSecret, time.Millisecond, true},
		{"one-hour ttl", testSecret, time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTokens(tc.secret, "", tc.ttl, nil)
			if got := err != nil; got != tc.wantErr {
				t.Errorf("error: got %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestTokensLiteralDefaults(t *testing.T) {
	tk := &Tokens{Secret: testSecret}
	token, exp, err := tk.Issue(user, testID, testSID, 0, action.Web)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	if d := time.Until(exp); d < DefaultTTL-time.Minute || d > DefaultTTL {
		t.Errorf("lifetime: got %v, want about %v", d, DefaultTTL)
	}
	if iss := decodePayload(t, token)["iss"]; iss != DefaultIssuer {
		t.Errorf("iss: got %v, want %s", iss, DefaultIssuer)
	}
	if _, err := tk.Parse(user, token); err != nil {
		t.Errorf("Parse: got %v, want nil", err)
	}
	bad := &Tokens{Secret: []byte("short")}
	if _, _, err := bad.Issue(user, testID, testSID, 0, action.Web); err == nil {
		t.Error("Issue with a short secret: got nil error, want one")
	}
	if _, err := bad.Parse(user, token); err == nil || errors.Is(err, ErrInvalidToken) {
		t.Errorf("Parse with a short secret: got %v, want a configuration error", err)
	}
}

func TestIssueRejects(t *testing.T) {
	now := testT0
	tk := newTestTokens(t, &now)
	for _, tc := range []struct {
		name    string
		owner   action.OwnerType
		id, sid uuid.UUID
		version int64
		client  action.Client
	}{
		{"empty owner", "", testID, testSID, 0, action.Web},
		{"nil id", user, uuid.Nil, testSID, 0, action.Web},
		{"nil session id", user, testID, uuid.Nil, 0, action.Web},
		{"negative version", user, testID, testSID, -1, action.Web},
		{"unknown client", user, testID, testSID, 0, "desktop"},
		{"empty client", user, testID, testSID, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if token, _, err := tk.Issue(tc.owner, tc.id, tc.sid, tc.version, tc.client); err == nil {
				t.Errorf("Issue: got token %q, want an error", token)
			}
		})
	}
}

func BenchmarkIssue(b *testing.B) {
	now := testT0
	tk := newTestTokens(b, &now)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := tk.Issue(user, testID, testSID, 3, action.Web); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	now := testT0
	tk := newTestTokens(b, &now)
	token, _, err := tk.Issue(user, testID, testSID, 3, action.Web)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tk.Parse(user, token); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIssueAuthenticated: the amr and auth_time claims of how the session
// was authenticated are written and read back; Issue writes neither.
func TestIssueAuthenticated(t *testing.T) {
	now := testT0.Add(500 * time.Millisecond)
	tk, err := NewTokens(testSecret, "actionkit", 15*time.Minute, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	authAt := testT0.Add(-3*time.Minute + 700*time.Millisecond)
	token, _, err := tk.IssueAuthenticated("user", testID, testSID, 1, action.Web,
		Authentication{Methods: []string{"pwd", "otp"}, Time: authAt})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tk.Parse("user", token)
	if err != nil || !reflect.DeepEqual(got.Methods, []string{"pwd", "otp"}) || !got.AuthTime.Equal(authAt.Truncate(time.Second)) {
		t.Errorf("claims %+v, %v: want amr [pwd otp] and auth_time %v", got, err, authAt.Truncate(time.Second))
	}
	payload := decodePayload(t, token)
	if payload["auth_time"] != float64(authAt.Unix()) {
		t.Errorf("auth_time %v, want whole seconds %d", payload["auth_time"], authAt.Unix())
	}
	plain, _, err := tk.Issue("user", testID, testSID, 1, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	if p := decodePayload(t, plain); p["amr"] != nil || p["auth_time"] != nil {
		t.Errorf("Issue wrote %v", p)
	}
}
