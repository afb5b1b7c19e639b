package accounts

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCounterVerdict pins the signature-counter rule: a counter advances
// or both are zero; anything else went back, and the stored counter is
// never lowered.
func TestCounterVerdict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stored   int64
		got      uint32
		next     int64
		wentBack bool
	}{
		{"no counter (synced)", 0, 0, 0, false},
		{"first use", 0, 1, 1, false},
		{"advances", 7, 9, 9, false},
		{"stands still", 7, 7, 7, true},
		{"goes back", 7, 3, 7, true},
		{"drops to zero", 7, 0, 7, true},
		{"top of the range", 4294967294, 4294967295, 4294967295, false},
	} {
		next, back := counterVerdict(tc.stored, tc.got)
		if next != tc.next || back != tc.wentBack {
			t.Errorf("%s: counterVerdict(%d, %d) = %d, %v; want %d, %v", tc.name, tc.stored, tc.got, next, back, tc.next, tc.wentBack)
		}
	}
}

// TestDecodeCredential: only the JSON shape and the base64url of binary
// members are checked before a ceremony is spent.
func TestDecodeCredential(t *testing.T) {
	for _, raw := range []string{``, `[]`, `"x"`, `{"id":"A+"}`, `{"id":"AA","rawId":"A/=="}`, `{"response":{"clientDataJSON":5}}`,
		`{"response":{"signature":"%%"}}`, `{"type":5}`} {
		if _, err := decodeAssertion(json.RawMessage(raw)); !errors.Is(err, ErrMalformedCredential) {
			t.Errorf("assertion %s: %v, want ErrMalformedCredential", raw, err)
		}
		if _, err := decodeCreation(json.RawMessage(raw)); !errors.Is(err, ErrMalformedCredential) && raw != `{"response":{"signature":"%%"}}` {
			t.Errorf("creation %s: %v, want ErrMalformedCredential", raw, err)
		}
	}
	for _, raw := range []string{`{}`, `{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","signature":"AA"}}`} {
		if _, err := decodeAssertion(json.RawMessage(raw)); err != nil {
			t.Errorf("assertion %s: %v, want it decoded (its meaning is checked later)", raw, err)
		}
	}
}

// TestNewRelyingParty: the settings the server accepts make a relying
// party, an Android app's origin included.
func TestNewRelyingParty(t *testing.T) {
	for _, s := range []WebAuthnSettings{
		{RPID: "localhost", RPName: "actionkit", Origins: []string{"http://localhost:8000"}},
		{RPID: "example.com", RPName: "Example", Origins: []string{"https://example.com", "https://app.example.com:8443"},
			AppOrigins: []string{"android:apk-key-hash:" + strings.Repeat("Ab-_", 11)}},
	} {
		if _, err := NewRelyingParty(s); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if _, err := NewRelyingParty(WebAuthnSettings{RPID: "example.com", RPName: "x"}); err == nil {
		t.Error("no origin: accepted")
	}
}
