package auth

import (
	"strings"
	"testing"
)

func TestCheckPasswordPolicy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		password string
		want     error
	}{
		{"12 characters, all classes", "Abcdefghij1!", nil},
		{"11 characters", "Abcdefghi1!", ErrPasswordLength},
		{"empty", "", ErrPasswordLength},
		{"128 characters", strings.Repeat("Ab1!", 32), nil},
		{"129 characters", strings.Repeat("Ab1!", 32) + "x", ErrPasswordLength},
		{"128 multi-byte characters (counted as runes)", strings.Repeat("Éa1€", 32), nil},
		{"12 runes, 20 bytes", "Éé1€abcdefgh", nil},
		{"11 runes of many bytes", "Éé1€€€€€€€€", ErrPasswordLength},
		{"invalid UTF-8", "Abcdefghij1!\xff", ErrPasswordEncoding},
		{"truncated UTF-8 sequence", "Abcdefghij1!\xe2\x82", ErrPasswordEncoding},
		{"no lowercase", "ABCDEFGHIJ1!", ErrPasswordComposition},
		{"no uppercase", "abcdefghij1!", ErrPasswordComposition},
		{"no digit", "Abcdefghijk!", ErrPasswordComposition},
		{"no other character", "Abcdefghij12", ErrPasswordComposition},
		{"space counts as other", "Abcdefghij1 ", nil},
		{"any punctuation counts", "Abcdefghij1~", nil},
		{"any symbol counts", "Abcdefghij1€", nil},
		{"bracket counts", "Abcdefghij1[", nil},
		{"emoji counts", "Abcdefghij1🔑", nil},
		{"CJK counts as other", "Abcdefghij1密", nil},
		{"CJK is not a letter of either case", "密码密码密码密码1密码!", ErrPasswordComposition},
		{"accented lowercase counts as lowercase", "ABCDEFGHIJé1!", nil},
		{"accented uppercase counts as uppercase", "abcdefghijÉ1!", nil},
		{"Greek letters", "Σσσσσσσσσσ1!", nil},
		{"non-ASCII digit counts as digit", "Abcdefghij١!", nil},
		{"superscript two is other, not a digit", "Abcdefghij!²", ErrPasswordComposition},
		{"only spaces and letters and digits", "Abcdefghij 1", nil},
		{"leading and trailing spaces kept and counted", " Abcdefghi1 ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckPasswordPolicy(tc.password); got != tc.want {
				t.Errorf("CheckPasswordPolicy(%q): got %v, want %v", tc.password, got, tc.want)
			}
		})
	}
}
