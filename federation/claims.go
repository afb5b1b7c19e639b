package federation

import (
	"encoding/json"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// Identity is what a verified ID token says of the person who signed in.
type Identity struct {
	// Provider is the id of the provider that issued the token.
	Provider string
	// Subject is the provider's stable id of the person (sub).
	Subject string
	// Email is the e-mail claim, trimmed, "" when absent or not a valid
	// address of at most MaxEmailLength characters (see usableEmail);
	// EmailVerified is true only when the token says so of that address.
	Email         string
	EmailVerified bool
	// GivenName and FamilyName are the profile's names, "" when absent.
	GivenName  string
	FamilyName string
	// Nonce is the token's nonce, for the caller to compare with the one
	// it sent.
	Nonce string
}

// idClaims are the claims read from an ID token beyond those the
// verifier checks.
type idClaims struct {
	Email         string   `json:"email"`
	EmailVerified flexBool `json:"email_verified"`
	GivenName     string   `json:"given_name"`
	FamilyName    string   `json:"family_name"`
}

// flexBool reads a claim sent as a JSON boolean or as the strings "true"
// and "false" (some providers send strings); any other value reads as
// false, so that a claim a provider garbles never counts as verified.
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (b *flexBool) UnmarshalJSON(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	switch v {
	case true, "true":
		*b = true
	default:
		*b = false
	}
	return nil
}

// MaxEmailLength is the longest e-mail claim taken as an address.
const MaxEmailLength = 254

// usableEmail is the e-mail claim raw, trimmed, when it is one valid
// address (no display name, no comment) of at most MaxEmailLength
// characters (as register counts them) without a NUL; else "", as if the claim were absent. A provider's claim
// is stored and compared with the accounts' addresses, which hold no
// longer or stranger value, and a garbled one must never fail a sign-in.
func usableEmail(raw string) string {
	email := strings.TrimSpace(raw)
	if email == "" || utf8.RuneCountInString(email) > MaxEmailLength || strings.ContainsRune(email, 0) {
		return ""
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return ""
	}
	return email
}
