package webhooks

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// TestSignMatchesTheStandardWebhooksVector: the signature of the Standard
// Webhooks libraries' published example (checked with npm standardwebhooks
// 1.1.1 too).
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	got, err := Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0),
		[]byte(`{"test": 2432232314}`), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestSignWithTwoSecretsGivesTwoSignatures: during a rotation's grace the
// header holds one signature per secret, separated by a space, the new
// secret's first.
func TestSignWithTwoSecretsGivesTwoSignatures(t *testing.T) {
	at := time.Unix(1700000000, 0)
	a, b := NewSecret(), NewSecret()
	both, err := Sign("id", at, []byte("{}"), a, b)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Sign("id", at, []byte("{}"), a)
	two, _ := Sign("id", at, []byte("{}"), b)
	if both != one+" "+two || one == two {
		t.Fatalf("got %q, want %q", both, one+" "+two)
	}
}

// TestNewSecretIsWhsecAnd32RandomBytes, and a malformed secret is refused.
func TestNewSecretIsWhsecAnd32RandomBytes(t *testing.T) {
	s := NewSecret()
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	if !strings.HasPrefix(s, SecretPrefix) || err != nil || len(raw) != 32 || s == NewSecret() {
		t.Fatalf("secret %q: %v", s, err)
	}
	for _, bad := range []string{"", "whsec_", "whsec_!!", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"} {
		if _, err := Sign("id", time.Now(), nil, bad); err == nil {
			t.Errorf("secret %q was accepted", bad)
		}
	}
}

// TestRetriesFollowTheSchedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h,
// then none.
func TestRetriesFollowTheSchedule(t *testing.T) {
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	for i, w := range want {
		if got, ok := NextAttempt(i + 1); !ok || got != w {
			t.Errorf("after attempt %d: got %v %v, want %v", i+1, got, ok, w)
		}
	}
	if _, ok := NextAttempt(len(want) + 1); ok {
		t.Errorf("after attempt %d: a retry, want failed", len(want)+1)
	}
}
