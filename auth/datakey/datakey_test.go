package datakey_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/auth/datakey"
)

const hexKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

func mustParse(t testing.TB, s string) *datakey.Key {
	t.Helper()
	k, err := datakey.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := mustParse(t, hexKey)
	ct, nonce, err := k.Seal([]byte("a TOTP secret"), []byte("mfa_totp:owner-1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("TOTP secret")) {
		t.Fatal("the ciphertext holds the plaintext")
	}
	got, err := k.Open(ct, nonce, []byte("mfa_totp:owner-1"))
	if err != nil || string(got) != "a TOTP secret" {
		t.Fatalf("Open = %q, %v; want the plaintext", got, err)
	}
	_, nonce2, _ := k.Seal([]byte("a TOTP secret"), nil)
	if bytes.Equal(nonce, nonce2) {
		t.Fatal("two seals used one nonce")
	}
}

func TestOpenRefuses(t *testing.T) {
	k := mustParse(t, hexKey)
	other := mustParse(t, strings.Repeat("ab", 32))
	ct, nonce, err := k.Seal([]byte("secret"), []byte("row-1"))
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Clone(ct)
	tampered[0] ^= 1
	for _, tc := range []struct {
		name      string
		key       *datakey.Key
		ct, nonce []byte
		context   string
	}{
		{"another key", other, ct, nonce, "row-1"},
		{"another row", k, ct, nonce, "row-2"},
		{"a tampered ciphertext", k, tampered, nonce, "row-1"},
		{"a short nonce", k, ct, nonce[:5], "row-1"},
		{"nothing", k, nil, nil, "row-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.key.Open(tc.ct, tc.nonce, []byte(tc.context))
			if !errors.Is(err, datakey.ErrOpen) || got != nil {
				t.Fatalf("Open = %q, %v; want nil, ErrOpen", got, err)
			}
		})
	}
}

func TestParseRefusesBadKeys(t *testing.T) {
	for _, s := range []string{"", "abcd", strings.Repeat("zz", 32), strings.Repeat("ab", 31), strings.Repeat("ab", 33)} {
		if _, err := datakey.Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted it", s)
		} else if len(s) > 8 && strings.Contains(err.Error(), s) {
			t.Errorf("the error %q repeats the key", err)
		}
	}
}

func TestDeriveIsStableAndDistinct(t *testing.T) {
	a1, err := datakey.Derive([]byte("secret one that is long enough....."))
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := datakey.Derive([]byte("secret one that is long enough....."))
	b, _ := datakey.Derive([]byte("secret two that is long enough....."))
	if a1.Fingerprint() != a2.Fingerprint() {
		t.Error("one secret derived two keys")
	}
	if a1.Fingerprint() == b.Fingerprint() {
		t.Error("two secrets derived one key")
	}
	if _, err := datakey.Derive(nil); err == nil {
		t.Error("derived a key from nothing")
	}
}

func TestSubkeysAreIndependent(t *testing.T) {
	k := mustParse(t, hexKey)
	if bytes.Equal(k.Subkey("recovery-codes"), k.Subkey("other")) {
		t.Fatal("two purposes share a subkey")
	}
	if !bytes.Equal(k.MAC("recovery-codes", []byte("x")), k.MAC("recovery-codes", []byte("x"))) {
		t.Fatal("MAC is not deterministic")
	}
	if bytes.Equal(k.MAC("recovery-codes", []byte("x")), k.MAC("other", []byte("x"))) {
		t.Fatal("MAC ignores the purpose")
	}
	r1, _ := datakey.Random()
	r2, _ := datakey.Random()
	if r1.Fingerprint() == r2.Fingerprint() {
		t.Fatal("two random keys are one")
	}
}
