package auth

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// Length bounds of a new password, in characters (Unicode code points).
const (
	// MinPasswordRunes is the fewest characters a new password may have.
	MinPasswordRunes = 12
	// MaxPasswordRunes is the most characters a new password may have.
	MaxPasswordRunes = 128
)

// Reasons CheckPasswordPolicy gives for refusing a password.
var (
	// ErrPasswordEncoding is returned for a password that is not valid UTF-8.
	ErrPasswordEncoding = errors.New("password is not valid UTF-8")
	// ErrPasswordLength is returned for fewer than 12 or more than 128
	// characters.
	ErrPasswordLength = errors.New("password must have 12 to 128 characters")
	// ErrPasswordComposition is returned when a character class is missing.
	ErrPasswordComposition = errors.New("password needs a lowercase letter, an uppercase letter, a digit and another character")
)

// CheckPasswordPolicy reports why p may not be chosen as a password, or
// nil when it may (the password rule of docs/security.md). It applies to
// new passwords only (register, change); a login compares whatever it is
// given.
//
// p must be valid UTF-8 and have 12 to 128 code points. It needs a
// lowercase letter (unicode.IsLower, so "é" and "ß" count), an uppercase
// letter (unicode.IsUpper, so "É" counts), a digit (unicode.IsDigit, any
// script's decimal digits) and a character that is none of those three.
// That last class is deliberately broad: punctuation, symbols, spaces,
// letters without case (CJK, Arabic, Hebrew...), title-case letters, marks
// and other numerals all count. A password is judged as given: no trimming
// and no Unicode normalisation.
func CheckPasswordPolicy(p string) error {
	if !utf8.ValidString(p) {
		return ErrPasswordEncoding
	}
	if n := utf8.RuneCountInString(p); n < MinPasswordRunes || n > MaxPasswordRunes {
		return ErrPasswordLength
	}
	var lower, upper, digit, other bool
	for _, r := range p {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		default:
			other = true
		}
	}
	if !lower || !upper || !digit || !other {
		return ErrPasswordComposition
	}
	return nil
}
