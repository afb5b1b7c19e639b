package auth

import (
	"strings"
	"testing"
)

func TestNewOpaqueToken(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		raw, hash, err := NewOpaqueToken()
		if err != nil {
			t.Fatalf("NewOpaqueToken: %v", err)
		}
		if !WellFormedOpaqueToken(raw) {
			t.Fatalf("raw %q: got malformed, want 64 lowercase hex characters", raw)
		}
		if !WellFormedOpaqueToken(hash) {
			t.Fatalf("hash %q: got malformed, want 64 lowercase hex characters", hash)
		}
		if got := HashOpaqueToken(raw); got != hash {
			t.Fatalf("HashOpaqueToken(raw): got %s, want %s", got, hash)
		}
		if seen[raw] {
			t.Fatalf("raw %q generated twice", raw)
		}
		seen[raw] = true
	}
}

func TestHashOpaqueToken(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		// sha256sum of the text, as printed by coreutils.
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"hex text, not decoded bytes", strings.Repeat("0", 64), "60e05bd1b195af2f94112fa7197a5c88289058840ce7c6df9693756bc6250f55"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HashOpaqueToken(tc.raw); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestWellFormedOpaqueToken(t *testing.T) {
	valid := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name string
		raw  string
		want bool
	}{
		{"64 lowercase hex", valid, true},
		{"all zeros", strings.Repeat("0", 64), true},
		{"empty", "", false},
		{"63 characters", valid[:63], false},
		{"65 characters", valid + "0", false},
		{"uppercase hex", strings.ToUpper(valid), false},
		{"one uppercase letter", "A" + valid[1:], false},
		{"letter g", "g" + valid[1:], false},
		{"space", " " + valid[1:], false},
		{"trailing newline", valid[:63] + "\n", false},
		{"non-ASCII of 64 bytes", strings.Repeat("é", 32), false},
		{"base64 of 48 bytes", strings.Repeat("AbC+", 16), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WellFormedOpaqueToken(tc.raw); got != tc.want {
				t.Errorf("WellFormedOpaqueToken(%q): got %v, want %v", tc.raw, got, tc.want)
			}
		})
	}
}
