package federation

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEmailVerifiedReading: email_verified counts only as a JSON true or
// the string "true"; absence, false, "false" and anything else mean not
// verified, and no value fails the whole token.
func TestEmailVerifiedReading(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      bool
	}{
		{"boolean true", `{"email_verified":true}`, true},
		{"string true", `{"email_verified":"true"}`, true},
		{"boolean false", `{"email_verified":false}`, false},
		{"string false", `{"email_verified":"false"}`, false},
		{"absent", `{}`, false},
		{"null", `{"email_verified":null}`, false},
		{"other string", `{"email_verified":"yes"}`, false},
		{"number", `{"email_verified":1}`, false},
		{"upper case", `{"email_verified":"TRUE"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c idClaims
			if err := json.Unmarshal([]byte(tc.doc), &c); err != nil {
				t.Fatalf("unmarshal %s: %v", tc.doc, err)
			}
			if bool(c.EmailVerified) != tc.want {
				t.Errorf("%s: got %v, want %v", tc.doc, c.EmailVerified, tc.want)
			}
		})
	}
}

// TestUsableEmail: an e-mail claim is taken, trimmed, only when it is one
// plain address of at most 254 characters (not bytes) without a NUL.
func TestUsableEmail(t *testing.T) {
	long := strings.Repeat("a", 243) + "@example.com" // 255 characters
	wide := strings.Repeat("é", 200) + "@example.com" // 212 characters, 412 bytes
	for raw, want := range map[string]string{
		wide:                        wide,
		" Ada@Example.com ":         "Ada@Example.com",
		long[1:]:                    long[1:],
		long:                        "",
		"a\x00b@example.com":        "",
		"Ada <ada@example.com>":     "",
		"ada@example.com, b@x.test": "",
		"not an address":            "",
		"":                          "",
	} {
		if got := usableEmail(raw); got != want {
			t.Errorf("usableEmail(%q): got %q, want %q", raw, got, want)
		}
	}
}
